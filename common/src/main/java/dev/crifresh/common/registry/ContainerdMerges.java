package dev.crifresh.common.registry;

import dev.crifresh.common.registry.ContainerdConfigFile.HostAuth;
import dev.crifresh.common.registry.ContainerdConfigFile.Parsed;
import dev.crifresh.common.registry.ContainerdConfigFile.PluginSection;
import dev.crifresh.common.registry.ContainerdReading.Document;
import dev.crifresh.common.registry.ContainerdReading.Failed;
import dev.crifresh.common.registry.ContainerdReading.Read;
import dev.crifresh.common.registry.ContainerdReading.RegistryTable;
import dev.crifresh.common.registry.ContainerdReading.Result;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How containerd 2.x merges the loaded files' registry tables, generation by generation, for
 * {@link ContainerdReading} (whose Javadoc sums the readings up; docs/design.md, "containerd's config semantics").
 */
final class ContainerdMerges {
    /** The generation does not load these files at all (it refuses to start), so it holds nothing from them. */
    record Refused(String message) {
    }

    /** {@code version.ConfigVersion} of containerd 2.0, 2.1 and 2.2: the version of the config a merge starts from. */
    private static final int DEFAULT_VERSION_2_2 = 3;

    private ContainerdMerges() {
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
    static Object mergedFirst(List<Document> documents) {
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
    static Result perFileToFour(List<Document> documents) {
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
    static Object twoZero(List<Document> documents) {
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
            return new Failed(ContainerdReading.versions(documents) + ": containerd 2.0 (known from its source only) reads these files"
                    + " differently whether it migrates them one by one or merged");
        }
        return merged;
    }

    /**
     * The 1.x CRI plugin's table of one file as containerd 2.x takes it: a version 0 or 1 file's {@code cri}
     * counts as {@code io.containerd.grpc.v1.cri}; null when such a file has both names.
     */
    static PluginSection legacySection(Parsed p) {
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
    static final class Merged {
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
}
