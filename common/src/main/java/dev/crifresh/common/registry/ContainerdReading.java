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
@SuppressWarnings("checkstyle:filelength") // each containerd generation's merge beside the others, so that their differences read side by side
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

    /** The generation does not load these files at all (it refuses to start), so it holds nothing from them. */
    private record Refused(String message) {
    }

    /** {@code version.ConfigVersion} of containerd 2.0, 2.1 and 2.2: the version of the config a merge starts from. */
    private static final int DEFAULT_VERSION_2_2 = 3;

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
            case V2_1, V2_2 -> settle(generation, mergedFirst(documents));
            case V2_3 -> settle(generation, perFileToFour(documents));
            case TWO -> anyTwo(documents);
        };
    }

    /**
     * A generation named exactly that refuses the files cannot start on them, now or after a reboot: no pull sends
     * anything, and only a change to the files helps ({@link Read#criFails()}, reported as refused).
     */
    private static Result settle(Generation generation, Object reading) {
        return reading instanceof Refused r ? new Read(RegistryTable.EMPTY, List.of("containerd "
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
        Merged table = new Merged();
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
        readings.put("2.0", twoZero(documents));
        readings.put("2.1", mergedFirst(documents));
        readings.put("2.2", readings.get("2.1"));
        readings.put("2.3", perFileToFour(documents));
        Result agreed = null;
        boolean disagree = false;
        for (Object r : readings.values()) {
            if (r instanceof Refused) {
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
        readings.forEach((g, r) -> says.add(g + ": " + (r instanceof Refused ? "refuses them" : hosts((Result) r))));
        return new Failed(shape(documents) + "; containerd 2.x releases read different registry credentials from"
                + " these files (" + String.join(", ", says) + "), and which one runs is not known:"
                + " --containerd-generation names it");
    }

    /** The shape that makes 2.x releases disagree: the first file with a CRI registry a migration may move. */
    private static String shape(List<Document> documents) {
        for (Document d : documents) {
            PluginSection cri = legacySection(d.parsed());
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

    private static String versions(List<Document> documents) {
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

    /**
     * containerd 2.1 and 2.2 ({@code LoadConfig} in {@code cmd/containerd/server/config/config.go}, the same in
     * v2.0.9, v2.1.9 and v2.2.7): the merge starts from the default config, whose version is 3; a version 0 or 1
     * file is re-stamped to the version merged so far ({@code MigrateConfigTo(ctx, out.Version)}, which renames its
     * short plugin ids), so it never lowers it; the files are merged key by key (a later non-zero {@code version}
     * wins); only the merged version is checked (above 3 is refused), so a version 4 import followed by a version
     * 3 one loads. A merged version 2 is then migrated, and the CRI plugin's {@code registry} (a version 0 or 1
     * file's {@code cri} counted as {@code io.containerd.grpc.v1.cri}) replaces the images plugin's whole, with or
     * without {@code containerd.runtimes}. A merged version 3 is not migrated: the images plugin's registry is the
     * one. So a version 3 file loaded after a version 2 file that holds the registry loses it, and a version 1
     * drop-in under a version 3 (or version-less) root is never migrated: its registry is dropped.
     */
    private static Object mergedFirst(List<Document> documents) {
        int version = DEFAULT_VERSION_2_2;
        for (Document d : documents) {
            if (d.parsed().version() >= 2) {
                version = d.parsed().version();
            }
        }
        if (version > 3) {
            return new Refused("the merged version is " + version + ", above 3");
        }
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
            if (p.section(ContainerdConfigFile.IMAGES_PLUGIN).pullProgressTimeout() != null) {
                images.timeout = p.section(ContainerdConfigFile.IMAGES_PLUGIN).pullProgressTimeout();
            }
            if (cri.pullProgressTimeout() != null) {
                legacy.timeout = cri.pullProgressTimeout();
            }
        }
        Merged holding = version == 2 && legacyRegistry ? legacy : images;
        // The migration moves the legacy table's image_pull_progress_timeout too, registry or not.
        holding.timeout = version == 2 && legacy.timeout != null ? legacy.timeout : images.timeout;
        return holding.read(false);
    }

    /**
     * containerd 2.3, as the real binary shows it ({@code LoadConfigWithPlugins}: the root config's version is the
     * first non-zero one, and 2.3.4 refuses an import above it, a check later 2.3 releases drop, so such files are in
     * doubt; each file is migrated from its own version up to 4, and
     * the images plugin's migration runs at every step below 4, so a version 0–3 file's CRI {@code registry}
     * replaces that file's images registry whole; then the file is merged key by key into what came before).
     */
    private static Result perFileToFour(List<Document> documents) {
        int root = 0;
        for (Document d : documents) {
            int version = d.parsed().version();
            if (root == 0) {
                root = version;
            }
            if (version > root) {
                // 2.3.4 refuses it; containerd/containerd#13939 (cherry-picked to release/2.3) drops the check, so a
                // later 2.3 loads it, and that reading has not been seen: in doubt, not refused.
                return new Failed(d.path() + ": an import of version " + version + " under a version " + root
                        + " root config: containerd 2.3.4 refuses it, later 2.3 releases load it");
            }
        }
        Merged merged = new Merged();
        for (Document d : documents) {
            Parsed p = d.parsed();
            PluginSection cri = legacySection(p);
            if (cri == null) {
                return bothNames(d);
            }
            // The file's own migration replaces its images registry with the CRI plugin's whole.
            PluginSection effective = p.version() < 4 && cri.registryDefined() ? cri
                    : p.section(ContainerdConfigFile.IMAGES_PLUGIN);
            Failed doubt = merged.merge(d, effective);
            if (doubt != null) {
                return doubt;
            }
            String timeout = p.version() < 4 && cri.pullProgressTimeout() != null ? cri.pullProgressTimeout()
                    : p.section(ContainerdConfigFile.IMAGES_PLUGIN).pullProgressTimeout();
            if (timeout != null) {
                merged.timeout = timeout;
            }
        }
        return merged.read(false);
    }

    /**
     * containerd 2.0, from its source only (it cannot run here): its images plugin moves the CRI registry only
     * when {@code containerd.runtimes} is beside it, and whether its loader migrates the merged config (as 2.1 and
     * 2.2 do) or each file (as 2.3 does) is not confirmed. It is read only where both loaders would read the same;
     * a CRI registry without {@code containerd.runtimes} in a file of version 2 or below is in doubt. It refuses
     * what 2.1 refuses (a version above 3).
     */
    private static Object twoZero(List<Document> documents) {
        for (Document d : documents) {
            PluginSection cri = legacySection(d.parsed());
            if (cri != null && cri.registryDefined() && d.parsed().version() <= 2 && !d.parsed().criRuntimes()) {
                return new Failed(d.path() + ": a version " + d.parsed().version() + " file with a registry in the"
                        + " CRI plugin's table and no containerd.runtimes beside it: containerd 2.0 (known from its"
                        + " source only) leaves it where 2.1 moves it");
            }
        }
        Object merged = mergedFirst(documents);
        if (merged instanceof Refused || merged instanceof Failed) {
            return merged;
        }
        Merged perFile = new Merged();
        for (Document d : documents) {
            Parsed p = d.parsed();
            PluginSection cri = legacySection(p);
            PluginSection effective = p.version() <= 2 && cri.registryDefined() ? cri
                    : p.section(ContainerdConfigFile.IMAGES_PLUGIN);
            Failed doubt = perFile.merge(d, effective);
            if (doubt != null) {
                return doubt;
            }
            String timeout = p.version() <= 2 && cri.pullProgressTimeout() != null ? cri.pullProgressTimeout()
                    : p.section(ContainerdConfigFile.IMAGES_PLUGIN).pullProgressTimeout();
            if (timeout != null) {
                perFile.timeout = timeout;
            }
        }
        if (!merged.equals(perFile.read(false))) {
            return new Failed(versions(documents) + ": containerd 2.0 (known from its source only) reads these files"
                    + " differently whether it migrates them one by one or merged");
        }
        return merged;
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

    /**
     * Merges one file's auth entries into {@code merged}, key by key, as containerd 2.x merges the tables: a later
     * file's fields override and fields it does not spell stay. containerd then pulls with {@code username} and
     * {@code password} before {@code auth}, so a pair in one file and only {@code auth} in the other is the pair's
     * credential, whichever file comes first (both seen with real pulls on 2.1). Any other credential assembled
     * from two files is in doubt.
     */
    private static Failed mergeFields(Document d, Map<String, HostAuth> merged, Map<String, HostAuth> entries) {
        for (Map.Entry<String, HostAuth> e : entries.entrySet()) {
            HostAuth earlier = merged.get(e.getKey());
            HostAuth later = e.getValue();
            if (earlier == null || earlier.auth().equals(later.auth()) || later.fields().containsAll(earlier.fields())) {
                merged.put(e.getKey(), later);
            } else if (pair(later) && authOnly(earlier) || pair(earlier) && authOnly(later)) {
                java.util.Set<String> fields = new java.util.TreeSet<>(earlier.fields());
                fields.addAll(later.fields());
                merged.put(e.getKey(), new HostAuth(pair(later) ? later.auth() : earlier.auth(), fields));
            } else {
                return new Failed(d.path() + ": registry " + e.getKey() + " has auth fields from two files;"
                        + " containerd 2.x merges them field by field");
            }
        }
        return null;
    }

    /** Spells exactly a non-empty {@code username} and {@code password}. */
    private static boolean pair(HostAuth a) {
        return a.fields().equals(java.util.Set.of("username", "password")) && !a.auth().username().isEmpty()
                && !a.auth().password().isEmpty();
    }

    /** Spells only {@code auth}. */
    private static boolean authOnly(HostAuth a) {
        return a.fields().equals(java.util.Set.of("auth"));
    }

    /**
     * One registry table being merged key by key (containerd 2.x): {@code configs} and {@code auths} entry by
     * entry ({@link #mergeFields}), a later {@code config_path} over an earlier one.
     */
    private static final class Merged {
        final Map<String, HostAuth> configs = new LinkedHashMap<>();
        final Map<String, HostAuth> auths = new LinkedHashMap<>();
        final java.util.Set<String> mirrors = new java.util.TreeSet<>();
        final java.util.Set<String> tlsHosts = new java.util.TreeSet<>();
        String configPath;
        /** The images plugin's {@code image_pull_progress_timeout}, null when absent (set by the caller). */
        String timeout;

        Failed merge(Document d, PluginSection section) {
            Failed doubt = mergeFields(d, configs, section.configs());
            if (doubt == null) {
                doubt = mergeFields(d, auths, section.deprecatedAuths());
            }
            if (section.configPath() != null) {
                configPath = section.configPath();
            }
            mirrors.addAll(section.mirrors());
            tlsHosts.addAll(section.tlsHosts());
            return doubt;
        }

        /**
         * The table, with why the CRI image service fails to start on it: containerd's {@code ValidateImageConfig}
         * (2.x, {@code internal/cri/config/config.go}) and {@code ValidatePluginConfig} (1.x,
         * {@code pkg/cri/config/config.go}) refuse {@code mirrors} beside a {@code config_path}, 1.x also
         * {@code configs.<host>.tls} (2.x has no such field), and 2.x an {@code image_pull_progress_timeout} that
         * Go's {@code time.ParseDuration} refuses (1.x's is checked by the caller).
         */
        Result read(boolean one) {
            Map<String, RegistryAuth> c = new TreeMap<>();
            configs.forEach((key, a) -> c.put(key, a.auth()));
            Map<String, RegistryAuth> a = new TreeMap<>();
            auths.forEach((key, h) -> a.put(key, h.auth()));
            List<String> fails = new java.util.ArrayList<>();
            boolean configPathSet = configPath != null && !configPath.isEmpty();
            if (configPathSet && !mirrors.isEmpty()) {
                fails.add("registry.mirrors (" + String.join(", ", mirrors.stream().map(GoUrls::shown).toList())
                        + ") beside registry.config_path: containerd's CRI image service refuses them together");
            }
            if (one && configPathSet && !tlsHosts.isEmpty()) {
                fails.add("registry.configs." + GoUrls.shown(tlsHosts.iterator().next()) + ".tls beside"
                        + " registry.config_path: containerd 1.x's CRI plugin refuses them together");
            }
            if (!one && timeout != null) {
                GoDuration.Verdict verdict = GoDuration.parse(timeout);
                if (verdict == GoDuration.Verdict.INVALID) {
                    fails.add("image_pull_progress_timeout is not a Go duration (time.ParseDuration refuses it):"
                            + " containerd's CRI image service fails to start on it");
                } else if (verdict == GoDuration.Verdict.UNSURE) {
                    return new Failed("image_pull_progress_timeout is so long that Go's time.ParseDuration may"
                            + " refuse it (overflow)");
                }
            }
            return new Read(new RegistryTable(c, a, configPath), fails);
        }
    }

    private static String hosts(Result r) {
        return r instanceof Read read && !read.byHost().isEmpty() ? String.join(", ", read.byHost().keySet())
                : "no credentials";
    }
}
