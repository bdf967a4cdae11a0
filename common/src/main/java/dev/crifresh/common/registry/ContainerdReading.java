package dev.crifresh.common.registry;

import dev.crifresh.common.registry.ContainerdConfigFile.HostAuth;
import dev.crifresh.common.registry.ContainerdConfigFile.Parsed;
import dev.crifresh.common.registry.ContainerdConfigFile.PluginSection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The registry credentials containerd holds after loading its config and imports, read the way each
 * containerd generation reads them (docs/design.md, "containerd's config semantics", cites the sources):
 *
 * <ul>
 *   <li><b>containerd 1.x</b> merges the files first, then reads the merged config. The merged
 *       {@code version} is the last non-zero one in load order; a plugin's table in a later file
 *       replaces the earlier one whole. Merged version 0 or 1: the CRI plugin's table is {@code cri};
 *       2 and above: {@code io.containerd.grpc.v1.cri}, and a plugin key without a dot is refused.</li>
 *   <li><b>containerd 2.x</b> migrates each file from its own version first (a missing version counts
 *       as 1: {@code cri} is renamed {@code io.containerd.grpc.v1.cri}; from 2 to 3 the CRI images plugin
 *       takes that plugin's {@code registry} whole — containerd 2.1.9 always, 2.0's source only when the table
 *       also has {@code containerd.runtimes}, so without it the reading is in doubt), reads an import whose
 *       version is above the root config's (2.1.9; later sources refuse it and containerd then does not run),
 *       then merges the files key by key:
 *       a later file's {@code auth} fields override an earlier file's, fields it does not spell stay.
 *       The credentials are those of {@code io.containerd.cri.v1.images}.</li>
 * </ul>
 * A shape whose reading is in doubt (a field-by-field merge of two different credentials, a version 3
 * file whose older CRI section containerd 2.2 may migrate while 2.0 does not, a version ≤ 2 registry without
 * {@code containerd.runtimes} that 2.1 moves and 2.0 does not) is a failure.
 */
public final class ContainerdReading {
    /** Which containerd reads the files. */
    public enum Generation { ONE, TWO }

    /** One loaded file, in load order. */
    public record Document(String path, Parsed parsed) {
        public Document {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(parsed, "parsed");
        }
    }

    public sealed interface Result {
    }

    /** @param byHost the credential containerd holds for each normalised host */
    public record Read(Map<String, RegistryAuth> byHost) implements Result {
        public Read {
            byHost = Map.copyOf(byHost);
        }
    }

    /** Why containerd's reading cannot be told; never quotes a value. */
    public record Failed(String message) implements Result {
    }

    private ContainerdReading() {
    }

    /**
     * Without knowing the generation: when both read the same credentials there is no doubt. Otherwise
     * Talos pairs them itself (Talos ≤ 1.8 ships containerd 1.7 with a version 2 root config, Talos ≥ 1.9
     * containerd 2.x with version 3, Talos 1.15 version 4), so in Talos mode the root config's version
     * tells; elsewhere the doubt remains.
     */
    public static Result read(List<Document> documents, boolean talos) {
        Result one = read(documents, Generation.ONE);
        Result two = read(documents, Generation.TWO);
        if (one.equals(two)) {
            return two;
        }
        if (talos && !documents.isEmpty()) {
            return documents.get(0).parsed().version() >= 3 ? two : one;
        }
        return new Failed("containerd 1.x and 2.x would read different registry credentials from these files"
                + " (" + (one instanceof Failed f ? f.message() : "1.x: " + hosts(one)) + "; "
                + (two instanceof Failed f ? f.message() : "2.x: " + hosts(two)) + ")");
    }

    public static Result read(List<Document> documents, Generation generation) {
        return generation == Generation.ONE ? one(documents) : two(documents);
    }

    private static Result one(List<Document> documents) {
        int merged = 0;
        for (Document d : documents) {
            if (d.parsed().version() != 0) {
                merged = d.parsed().version();
            }
        }
        String plugin = merged <= 1 ? ContainerdConfigFile.CRI_SHORT : ContainerdConfigFile.CRI_V1_PLUGIN;
        Map<String, HostAuth> current = Map.of();
        for (Document d : documents) {
            if (merged >= 2 && d.parsed().shortPluginKeys()) {
                return new Failed(d.path() + ": containerd 1.x refuses a plugin name without dots in a version "
                        + merged + " config");
            }
            PluginSection section = d.parsed().section(plugin);
            if (section.defined()) {
                current = section.auths(); // the whole plugin table is replaced
            }
        }
        return read(current);
    }

    private static Result two(List<Document> documents) {
        // An import of a higher version than the root's: containerd 2.1.9 reads it (checked on the real binary);
        // later sources refuse it, and a containerd that refuses its config does not run — nothing to read.
        Map<String, HostAuth> merged = new LinkedHashMap<>();
        for (Document d : documents) {
            Parsed p = d.parsed();
            PluginSection images = p.section(ContainerdConfigFile.IMAGES_PLUGIN);
            Map<String, HostAuth> effective = images.auths();
            if (p.version() <= 2) {
                PluginSection cri = p.section(ContainerdConfigFile.CRI_V1_PLUGIN);
                if (p.version() <= 1 && p.section(ContainerdConfigFile.CRI_SHORT).defined()) {
                    if (cri.defined()) {
                        return new Failed(d.path() + ": both cri and io.containerd.grpc.v1.cri in a version "
                                + p.version() + " file; containerd 2.x keeps one of them at random");
                    }
                    cri = p.section(ContainerdConfigFile.CRI_SHORT);
                }
                if (cri.registryDefined()) {
                    // containerd 2.1.9 moves the registry whatever else the table holds (the real binary, docs/design.md);
                    // the images plugin's source at 2.0 moved it only with containerd.runtimes beside it.
                    if (!p.criRuntimes() && !cri.auths().equals(images.auths())) {
                        return new Failed(d.path() + ": a version " + p.version() + " file with a registry in "
                                + (p.section(ContainerdConfigFile.CRI_SHORT).defined() ? "cri" : "io.containerd.grpc.v1.cri")
                                + " but no containerd.runtimes: containerd 2.1 moves it into the images plugin,"
                                + " 2.0 leaves it behind");
                    }
                    effective = cri.auths();
                }
            } else if (p.version() == 3 && p.criRuntimes()
                    && p.section(ContainerdConfigFile.CRI_V1_PLUGIN).registryDefined()) {
                return new Failed(d.path() + ": a version 3 file with a registry in io.containerd.grpc.v1.cri:"
                        + " containerd 2.2 may migrate it into the images plugin, 2.0 does not");
            }
            for (Map.Entry<String, HostAuth> e : effective.entrySet()) {
                HostAuth earlier = merged.get(e.getKey());
                HostAuth later = e.getValue();
                if (earlier != null && !earlier.auth().equals(later.auth())
                        && !later.fields().containsAll(earlier.fields())) {
                    return new Failed(d.path() + ": registry " + e.getKey() + " has auth fields from two files;"
                            + " containerd 2.x merges them field by field");
                }
                merged.put(e.getKey(), later);
            }
        }
        return read(merged);
    }

    private static Read read(Map<String, HostAuth> auths) {
        Map<String, RegistryAuth> byHost = new TreeMap<>();
        auths.forEach((host, a) -> byHost.put(host, a.auth()));
        return new Read(byHost);
    }

    private static String hosts(Result r) {
        return r instanceof Read read && !read.byHost().isEmpty() ? String.join(", ", read.byHost().keySet())
                : "no credentials";
    }
}
