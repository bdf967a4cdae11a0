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
 *   <li><b>containerd 2.x</b> releases differ. containerd 2.1.9 (the real binary) merges the files key by
 *       key first, then migrates the merged config from its merged version (the last non-zero one): at 1 or
 *       2 the CRI plugin's {@code registry} replaces the images plugin's whole. The later source migrates each
 *       file from its own version (from 2 to 3 the images plugin takes the CRI plugin's {@code registry};
 *       2.0's source only when the table also has {@code containerd.runtimes}), refuses an import above the
 *       root's version, then merges. Where the two disagree the reading is in doubt. In both, a later file's
 *       {@code auth} fields override an earlier file's and fields it does not spell stay; the credentials are
 *       those of {@code io.containerd.cri.v1.images}.</li>
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

    /**
     * The images plugin's {@code registry} table as containerd holds it after loading every file: what a pull's
     * credential is looked up in ({@link PullCredentials} follows the lookup).
     *
     * @param configs    {@code registry.configs.<key>.auth}, by the key exactly as written
     * @param auths      the deprecated {@code registry.auths.<key>}, by the key exactly as written
     * @param configPath {@code registry.config_path}, null when absent
     */
    public record RegistryTable(Map<String, RegistryAuth> configs, Map<String, RegistryAuth> auths, String configPath) {
        public static final RegistryTable EMPTY = new RegistryTable(Map.of(), Map.of(), null);

        public RegistryTable {
            configs = Map.copyOf(configs);
            auths = Map.copyOf(auths);
        }
    }

    /** @param registry the images plugin's registry table containerd holds */
    public record Read(RegistryTable registry) implements Result {
        public Read {
            Objects.requireNonNull(registry, "registry");
        }

        /** Only {@code registry.configs}, keyed by host. */
        public Read(Map<String, RegistryAuth> byHost) {
            this(new RegistryTable(byHost, Map.of(), null));
        }

        /**
         * The {@code configs} credentials by normalised host, as the files spell them (the merge view; which of
         * them a pull sends is {@link PullCredentials}'s answer).
         */
        public Map<String, RegistryAuth> byHost() {
            return ContainerdConfigFile.byNormalisedHost(registry.configs());
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
        PluginSection current = PluginSection.ABSENT;
        for (Document d : documents) {
            if (merged >= 2 && d.parsed().shortPluginKeys()) {
                return new Failed(d.path() + ": containerd 1.x refuses a plugin name without dots in a version "
                        + merged + " config");
            }
            PluginSection section = d.parsed().section(plugin);
            if (section.defined()) {
                current = section; // the whole plugin table is replaced
            }
        }
        Merged table = new Merged();
        table.configPath = current.configPath();
        table.configs.putAll(current.configs());
        table.auths.putAll(current.deprecatedAuths());
        return table.read();
    }

    /** A marker: the per-file reading's containerd refuses the files (it does not run, so it holds nothing). */
    private static final Failed REFUSED = new Failed("refused");

    /**
     * The two ways containerd 2.x releases load the files: 2.1.9 (the real binary) merges them first and
     * migrates the merged config from its version; the later source migrates each file from its own version,
     * then merges. Where they agree, or where the later release would refuse the files (and not run), the
     * reading is 2.1.9's; otherwise it is in doubt.
     */
    private static Result two(List<Document> documents) {
        Result mergedFirst = twoMergedFirst(documents);
        Result perFile = twoPerFile(documents);
        if (perFile == REFUSED || perFile.equals(mergedFirst) || mergedFirst instanceof Failed) {
            return mergedFirst;
        }
        return perFile instanceof Failed f ? f : new Failed("containerd 2.1 (which merges the files, then migrates"
                + " them from the merged version " + mergedVersion(documents) + ") and later 2.x releases (which"
                + " migrate each file from its own version) read different registry credentials from these files");
    }

    /** The merged {@code version}: the last non-zero one in load order (containerd 1.x, and 2.1.9). */
    private static int mergedVersion(List<Document> documents) {
        int merged = 0;
        for (Document d : documents) {
            if (d.parsed().version() != 0) {
                merged = d.parsed().version();
            }
        }
        return merged;
    }

    /**
     * containerd 2.1.9, as the real binary shows it: the files are merged key by key (the last non-zero
     * {@code version} wins); a merged version 1 or 2 is then migrated, and the CRI plugin's {@code registry}
     * (a version 0 or 1 file's {@code cri} counted as {@code io.containerd.grpc.v1.cri}) replaces the images
     * plugin's whole, with or without {@code containerd.runtimes}. A merged version 0 or 3 and above is not
     * migrated: the images plugin's registry is the one. So a version 3 file loaded after a version 2 file
     * that holds the registry loses it.
     */
    private static Result twoMergedFirst(List<Document> documents) {
        int version = mergedVersion(documents);
        Merged images = new Merged();
        Merged legacy = new Merged();
        boolean legacyRegistry = false;
        for (Document d : documents) {
            Parsed p = d.parsed();
            PluginSection cri = legacySection(p);
            if (cri == null) {
                return bothNames(d);
            }
            legacyRegistry |= cri.registryDefined();
            Failed doubt = images.merge(d, p.section(ContainerdConfigFile.IMAGES_PLUGIN));
            if (doubt == null) {
                doubt = legacy.merge(d, cri);
            }
            if (doubt != null) {
                return doubt;
            }
        }
        return ((version == 1 || version == 2) && legacyRegistry ? legacy : images).read();
    }

    /**
     * The 1.x CRI plugin's table of one file as containerd 2.x takes it: a version 0 or 1 file's {@code cri}
     * counts as {@code io.containerd.grpc.v1.cri}; null when such a file has both names.
     */
    private static PluginSection legacySection(Parsed p) {
        PluginSection cri = p.section(ContainerdConfigFile.CRI_V1_PLUGIN);
        if (p.version() <= 1 && p.section(ContainerdConfigFile.CRI_SHORT).defined()) {
            return cri.defined() ? null : p.section(ContainerdConfigFile.CRI_SHORT);
        }
        return cri;
    }

    private static Failed bothNames(Document d) {
        return new Failed(d.path() + ": both cri and io.containerd.grpc.v1.cri in a version " + d.parsed().version()
                + " file; containerd 2.x keeps one of them at random");
    }

    /** Merges one file's auth entries into {@code merged}, key by key; a credential assembled from two files is in doubt. */
    private static Failed mergeFields(Document d, Map<String, HostAuth> merged, Map<String, HostAuth> entries) {
        for (Map.Entry<String, HostAuth> e : entries.entrySet()) {
            HostAuth earlier = merged.get(e.getKey());
            HostAuth later = e.getValue();
            if (earlier != null && !earlier.auth().equals(later.auth())
                    && !later.fields().containsAll(earlier.fields())) {
                return new Failed(d.path() + ": registry " + e.getKey() + " has auth fields from two files;"
                        + " containerd 2.x merges them field by field");
            }
            merged.put(e.getKey(), later);
        }
        return null;
    }

    /**
     * containerd 2.x's later source ({@code cmd/containerd/server/config/config.go}, {@code LoadConfigWithPlugins}):
     * each file is migrated from its own version, an import above the root's version is refused, then the files
     * are merged key by key.
     */
    private static Result twoPerFile(List<Document> documents) {
        int root = 0;
        for (Document d : documents) {
            int version = d.parsed().version();
            if (root == 0) {
                root = version;
            }
            if (version > root) {
                return REFUSED;
            }
        }
        Merged merged = new Merged();
        for (Document d : documents) {
            Parsed p = d.parsed();
            PluginSection images = p.section(ContainerdConfigFile.IMAGES_PLUGIN);
            PluginSection effective = images;
            if (p.version() <= 2) {
                PluginSection cri = legacySection(p);
                if (cri == null) {
                    return bothNames(d);
                }
                if (cri.registryDefined()) {
                    // The images plugin's later source moves the registry whatever else the table holds; its
                    // source at 2.0 moved it only with containerd.runtimes beside it.
                    if (!p.criRuntimes() && !sameRegistry(cri, images)) {
                        return new Failed(d.path() + ": a version " + p.version() + " file with a registry in "
                                + (p.section(ContainerdConfigFile.CRI_SHORT).defined() ? "cri" : "io.containerd.grpc.v1.cri")
                                + " but no containerd.runtimes: containerd 2.1 moves it into the images plugin,"
                                + " 2.0 leaves it behind");
                    }
                    effective = cri;
                }
            } else if (p.version() == 3 && p.criRuntimes()
                    && p.section(ContainerdConfigFile.CRI_V1_PLUGIN).registryDefined()) {
                return new Failed(d.path() + ": a version 3 file with a registry in io.containerd.grpc.v1.cri:"
                        + " containerd 2.2 may migrate it into the images plugin, 2.0 does not");
            }
            Failed doubt = merged.merge(d, effective);
            if (doubt != null) {
                return doubt;
            }
        }
        return merged.read();
    }

    private static boolean sameRegistry(PluginSection a, PluginSection b) {
        return a.configs().equals(b.configs()) && a.deprecatedAuths().equals(b.deprecatedAuths())
                && Objects.equals(a.configPath(), b.configPath());
    }

    /**
     * One registry table being merged key by key (containerd 2.x): {@code configs} and {@code auths} entry by
     * entry ({@link #mergeFields}), a later {@code config_path} over an earlier one.
     */
    private static final class Merged {
        final Map<String, HostAuth> configs = new LinkedHashMap<>();
        final Map<String, HostAuth> auths = new LinkedHashMap<>();
        String configPath;

        Failed merge(Document d, PluginSection section) {
            Failed doubt = mergeFields(d, configs, section.configs());
            if (doubt == null) {
                doubt = mergeFields(d, auths, section.deprecatedAuths());
            }
            if (section.configPath() != null) {
                configPath = section.configPath();
            }
            return doubt;
        }

        Read read() {
            Map<String, RegistryAuth> c = new TreeMap<>();
            configs.forEach((key, a) -> c.put(key, a.auth()));
            Map<String, RegistryAuth> a = new TreeMap<>();
            auths.forEach((key, h) -> a.put(key, h.auth()));
            return new Read(new RegistryTable(c, a, configPath));
        }
    }

    private static String hosts(Result r) {
        return r instanceof Read read && !read.byHost().isEmpty() ? String.join(", ", read.byHost().keySet())
                : "no credentials";
    }
}
