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
 * containerd generation reads them (docs/design.md, "containerd's config semantics", cites the sources and the
 * real binaries that settle each reading):
 *
 * <ul>
 *   <li><b>containerd 1.x</b> merges the files first, then reads the merged config. The merged
 *       {@code version} is the last non-zero one in load order; a plugin's table in a later file
 *       replaces the earlier one whole. Merged version 0 or 1: the CRI plugin's table is {@code cri};
 *       2 and above: {@code io.containerd.grpc.v1.cri}, and a plugin key without a dot is refused.</li>
 *   <li><b>containerd 2.1 and 2.2</b> merge the files key by key first, starting from version 3; a version 0 or 1
 *       file takes the version merged so far, so the merged {@code version} is the last one of 2 or above (3 if
 *       none); a merged version 2 is then migrated, and the CRI plugin's {@code registry} replaces the images
 *       plugin's whole. Neither loads a merged version above 3.</li>
 *   <li><b>containerd 2.3</b> migrates <em>each file</em> from its own version up to 4 before merging it, and
 *       the images plugin's migration runs at every step below 4, the 3 → 4 step included: a version 0–3 file's
 *       CRI {@code registry} replaces that file's images registry whole. It refuses an import whose version is
 *       above the root config's.</li>
 *   <li><b>containerd 2.0</b> cannot run here: from its source only, it moves the CRI registry only when
 *       {@code containerd.runtimes} is beside it. Its reading is taken as known only where no file of version 2
 *       or below holds a CRI registry without {@code containerd.runtimes} beside it.</li>
 * </ul>
 * In every 2.x a later file's {@code auth} fields override an earlier file's and fields it does not spell stay;
 * the credentials are those of {@code io.containerd.cri.v1.images}. Where the generation is not named exactly
 * ({@link Generation#TWO}, or {@link #read(List, boolean)}), the reading is the one every candidate generation
 * agrees on, and a shape they disagree on is a failure naming it.
 */
public final class ContainerdReading {
    /** Which containerd reads the files: a generation exactly, or a family whose members must agree. */
    public enum Generation {
        /** containerd 1.6 and 1.7. */
        ONE("1.x"),
        /** Some containerd 2.x, not known which: 2.0 (from source), 2.1, 2.2 and 2.3 must agree. */
        TWO("2.x"),
        V2_1("2.1"),
        V2_2("2.2"),
        V2_3("2.3");

        private final String label;

        Generation(String label) {
            this.label = label;
        }

        /** How the operator and the reasons name it: {@code 1.x}, {@code 2.x}, {@code 2.1}, {@code 2.2}, {@code 2.3}. */
        public String label() {
            return label;
        }

        /**
         * The generation of a containerd version as containerd reports it ({@code v2.3.4}, {@code 2.1.9+unknown},
         * {@code 1.7.24~ds1}): 1.x is {@link #ONE}, 2.0 {@link #TWO} (no exact reading: from source only), 2.1–2.3
         * exactly; empty for anything else (a later containerd may read the files in a way this agent does not know).
         */
        public static java.util.Optional<Generation> ofVersion(String version) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v?(\\d+)\\.(\\d+)(?:[.+~-].*)?$")
                    .matcher(version == null ? "" : version.strip());
            if (!m.matches()) {
                return java.util.Optional.empty();
            }
            String minor = m.group(1) + "." + m.group(2);
            return switch (minor) {
                case "1.6", "1.7" -> java.util.Optional.of(ONE);
                case "2.0" -> java.util.Optional.of(TWO);
                case "2.1" -> java.util.Optional.of(V2_1);
                case "2.2" -> java.util.Optional.of(V2_2);
                case "2.3" -> java.util.Optional.of(V2_3);
                default -> java.util.Optional.empty();
            };
        }
    }

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

    /**
     * @param registry  the images plugin's registry table containerd holds
     * @param criFails  why containerd's CRI image service fails to start on this config ({@code mirrors} beside
     *                  {@code config_path}, an invalid {@code image_pull_progress_timeout}): containerd serves
     *                  without it, no pull sends anything, and a reboot loads the same files; empty when it starts
     */
    public record Read(RegistryTable registry, List<String> criFails) implements Result {
        public Read {
            Objects.requireNonNull(registry, "registry");
            criFails = List.copyOf(criFails);
        }

        public Read(RegistryTable registry) {
            this(registry, List.of());
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
     * Without knowing the generation: when 1.x and 2.x read the same credentials there is no doubt. Otherwise
     * Talos pairs them itself (Talos ≤ 1.8 ships containerd 1.7 with a version 2 root config, Talos ≥ 1.9
     * containerd 2.x with version 3, Talos 1.15 version 4), so in Talos mode the root config's version
     * tells 1.x from 2.x; elsewhere the doubt remains. Which 2.x runs is never told from the files.
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
        return switch (generation) {
            case ONE -> one(documents);
            case V2_1, V2_2 -> settle(generation, ContainerdMerges.mergedFirst(documents));
            case V2_3 -> settle(generation, ContainerdMerges.perFileToFour(documents));
            case TWO -> anyTwo(documents);
        };
    }

    /**
     * A generation named exactly that refuses the files cannot start on them, now or after a reboot: no pull sends
     * anything, and only a change to the files helps ({@link Read#criFails()}, reported as refused).
     */
    private static Result settle(Generation generation, Object reading) {
        return reading instanceof ContainerdMerges.Refused r ? new Read(RegistryTable.EMPTY, List.of("containerd "
                + generation.label() + " refuses these files (" + r.message() + "): it does not start on them"))
                : (Result) reading;
    }

    private static Result one(List<Document> documents) {
        int merged = mergedVersion(documents);
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
        ContainerdMerges.Merged table = new ContainerdMerges.Merged();
        table.configPath = current.configPath();
        table.configs.putAll(current.configs());
        table.auths.putAll(current.deprecatedAuths());
        table.mirrors.addAll(current.mirrors());
        table.tlsHosts.addAll(current.tlsHosts());
        table.timeout = current.pullProgressTimeout();
        if (table.timeout != null && GoDuration.parse(table.timeout) != GoDuration.Verdict.VALID) {
            return new Failed("the CRI plugin's image_pull_progress_timeout is not a Go duration: containerd 1.7's CRI"
                    + " plugin fails to start on it, 1.6 has no such setting");
        }
        return table.read(true);
    }

    /**
     * Some containerd 2.x: the reading 2.0 (from source), 2.1, 2.2 and 2.3 agree on. A generation that refuses
     * the files is not the one running with them and does not count; when they disagree the failure names the
     * shape and which generation reads what.
     */
    private static Result anyTwo(List<Document> documents) {
        Map<String, Object> readings = new LinkedHashMap<>();
        readings.put("2.0", ContainerdMerges.twoZero(documents));
        readings.put("2.1", ContainerdMerges.mergedFirst(documents));
        readings.put("2.2", readings.get("2.1"));
        readings.put("2.3", ContainerdMerges.perFileToFour(documents));
        Result agreed = null;
        boolean disagree = false;
        for (Object r : readings.values()) {
            if (r instanceof ContainerdMerges.Refused) {
                continue;
            }
            if (r instanceof Failed f) {
                return f;
            }
            if (agreed == null) {
                agreed = (Result) r;
            } else if (!agreed.equals(r)) {
                disagree = true;
            }
        }
        if (agreed == null) {
            return new Failed("no containerd 2.x loads these files");
        }
        if (!disagree) {
            return agreed;
        }
        List<String> says = new java.util.ArrayList<>();
        readings.forEach((g, r) -> says.add(g + ": "
                + (r instanceof ContainerdMerges.Refused ? "refuses them" : hosts((Result) r))));
        return new Failed(shape(documents) + "; containerd 2.x releases read different registry credentials from"
                + " these files (" + String.join(", ", says) + "), and which one runs is not known:"
                + " --containerd-generation names it");
    }

    /** The shape that makes 2.x releases disagree: the first file with a CRI registry a migration may move. */
    private static String shape(List<Document> documents) {
        for (Document d : documents) {
            PluginSection cri = ContainerdMerges.legacySection(d.parsed());
            if (cri != null && cri.registryDefined() && d.parsed().version() < 4) {
                return d.path() + ": a version " + d.parsed().version() + " file with a registry in the CRI plugin's"
                        + " table (" + (d.parsed().version() <= 1 && d.parsed().section(ContainerdConfigFile.CRI_SHORT)
                        .defined() ? "cri" : ContainerdConfigFile.CRI_V1_PLUGIN) + "), which containerd 2.3 moves"
                        + " over that file's io.containerd.cri.v1.images registry and 2.1 and 2.2 move only when"
                        + " the merged version is 2 (a version 0 or 1 file takes the version merged before it)";
            }
        }
        return "the files' versions (" + versions(documents) + ")";
    }

    static String versions(List<Document> documents) {
        List<String> out = new java.util.ArrayList<>();
        for (Document d : documents) {
            out.add(d.path() + " " + d.parsed().version());
        }
        return String.join(", ", out);
    }

    /** The merged {@code version} of containerd 1.x: the last non-zero one in load order. */
    private static int mergedVersion(List<Document> documents) {
        int merged = 0;
        for (Document d : documents) {
            if (d.parsed().version() != 0) {
                merged = d.parsed().version();
            }
        }
        return merged;
    }

    private static String hosts(Result r) {
        return r instanceof Read read && !read.byHost().isEmpty() ? String.join(", ", read.byHost().keySet())
                : "no credentials";
    }
}
