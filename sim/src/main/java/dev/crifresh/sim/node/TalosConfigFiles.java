package dev.crifresh.sim.node;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.sim.scenario.Credential;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The CRI config files of a Talos node, as text: {@code /etc/cri/containerd.toml} (imports the merged
 * file), the parts {@code /etc/cri/conf.d/00-base.part} and {@code 01-registries.part} (registry auth),
 * and the merged {@code /etc/cri/conf.d/cri.toml} that Talos renders from the parts. Pure rendering, no I/O.
 *
 * <p>One {@link Layout} per Talos release range (docs/reality.md, "Support matrix"; sources in siderolabs/talos):
 * <ul>
 *   <li>{@link Layout#TALOS_1_8} (Talos ≤ 1.8, containerd 1.7): config version 2, the CRI plugin as
 *       {@code io.containerd.grpc.v1.cri}; the {@code …V2} methods;</li>
 *   <li>{@link Layout#TALOS_1_13} (Talos 1.9–1.13, containerd 2.0–2.2): version 3; {@code 00-base.part} is
 *       {@code hack/cri-plugin.part} ({@code use_local_image_pull} and {@code discard_unpacked_layers} for
 *       {@code io.containerd.cri.v1.images}), {@code 01-registries.part} (mode 0600) holds the registry's
 *       {@code config_path = '/etc/cri/conf.d/hosts'} and its auth, and {@code cri.toml} merges them under one
 *       {@code ## <path> (sha256:…)} line per part; the default methods;</li>
 *   <li>{@link Layout#TALOS_1_14} (containerd 2.3): no {@code 01-registries.part} on disk — Talos merges the
 *       registries in memory into {@code cri.toml} (mode 0600), headed {@code ## file <path>} and
 *       {@code ## in-memory registries} ({@code internal/app/machined/pkg/controllers/files/cri_config.go},
 *       {@code renderConfig}; its test asserts no part file);</li>
 *   <li>{@link Layout#TALOS_1_15}: the 1.14 layout in config version 4 (from source only: no containerd here
 *       reads version 4 as 2.2+ does).</li>
 * </ul>
 */
public final class TalosConfigFiles {
    public static final String CONTAINERD_TOML = "/etc/cri/containerd.toml";
    public static final String CRI_TOML = "/etc/cri/conf.d/cri.toml";
    public static final String BASE_PART = "/etc/cri/conf.d/00-base.part";
    public static final String REGISTRIES_PART = "/etc/cri/conf.d/01-registries.part";
    public static final String BASE_RUNTIME_SPEC = "/etc/cri/conf.d/base-spec.json";

    private static final String IMAGES = "plugins.'io.containerd.cri.v1.images'";
    private static final String RUNTIME = "plugins.'io.containerd.cri.v1.runtime'";

    /** The layout Talos renders, per release range. */
    public enum Layout {
        TALOS_1_8("Talos <= 1.8", 2, true),
        TALOS_1_13("Talos 1.9-1.13", 3, true),
        TALOS_1_14("Talos 1.14", 3, false),
        TALOS_1_15("Talos 1.15", 4, false);

        private final String release;
        private final int version;
        private final boolean registriesPartOnDisk;

        Layout(String release, int version, boolean registriesPartOnDisk) {
            this.release = release;
            this.version = version;
            this.registriesPartOnDisk = registriesPartOnDisk;
        }

        public String release() {
            return release;
        }

        /** The config version of every file. */
        public int version() {
            return version;
        }

        /** Talos ≤ 1.13 writes {@code 01-registries.part}; 1.14 merges it in memory only. */
        public boolean registriesPartOnDisk() {
            return registriesPartOnDisk;
        }

        public String containerdToml() {
            return this == TALOS_1_8 ? containerdTomlV2() : TalosConfigFiles.containerdToml(version);
        }

        public String basePart(CriSettings settings) {
            return this == TALOS_1_8 ? basePartV2(settings) : TalosConfigFiles.basePart(version, settings);
        }

        public String registriesPart(String registry, Credential credential) {
            return this == TALOS_1_8 ? registriesPartV2(registry, credential)
                    : TalosConfigFiles.registriesPart(registry, credential);
        }

        public String criToml(String registry, Credential credential, CriSettings settings) {
            return switch (this) {
                case TALOS_1_8 -> criTomlV2(registry, credential, settings);
                case TALOS_1_13 -> TalosConfigFiles.criToml(version, registry, credential, settings);
                case TALOS_1_14, TALOS_1_15 -> "## file " + BASE_PART + "\n## in-memory registries\n\n"
                        + merged(version, registry, credential, settings);
            };
        }

        /**
         * Every file Talos writes for this layout, in the order it writes them (the base files, then the
         * registries part where it is on disk, then the merged file).
         */
        public List<File> files(String registry, Credential credential, CriSettings settings) {
            List<File> files = new ArrayList<>();
            files.add(new File(CONTAINERD_TOML, containerdToml(), false));
            files.add(new File(BASE_PART, basePart(settings), false));
            if (registriesPartOnDisk) {
                files.add(new File(REGISTRIES_PART, registriesPart(registry, credential), true));
            }
            // Talos ≥ 1.14 writes cri.toml 0600 (it holds the auth); earlier releases 0644.
            files.add(new File(CRI_TOML, criToml(registry, credential, settings), !registriesPartOnDisk));
            return List.copyOf(files);
        }

        /** The files that hold the registry auth: what a rotation rewrites. */
        public List<String> authFiles() {
            return registriesPartOnDisk ? List.of(REGISTRIES_PART, CRI_TOML) : List.of(CRI_TOML);
        }
    }

    /** One rendered file: its node path, its text, and whether Talos writes it mode 0600. */
    public record File(String path, String text, boolean secret) {
    }

    private TalosConfigFiles() {
    }

    /** The root config of Talos 1.9–1.13 ({@code hack/cri-containerd.toml}). */
    public static String containerdToml() {
        return containerdToml(3);
    }

    private static String containerdToml(int version) {
        return """
                version = %d

                disabled_plugins = [
                    "io.containerd.internal.v1.tracing",
                    "io.containerd.snapshotter.v1.blockfile",
                    "io.containerd.snapshotter.v1.erofs",
                    "io.containerd.ttrpc.v1.otelttrpc",
                    "io.containerd.tracing.processor.v1.otlp",
                ]

                imports = [
                    "%s",
                ]

                [debug]
                level = "info"
                format = "json"
                """.formatted(version, CRI_TOML);
    }

    /** {@code hack/cri-plugin.part}, Talos' base part for containerd 2.x. */
    public static String basePart() {
        return basePart(3, CriSettings.TALOS);
    }

    /**
     * {@code hack/cri-plugin.part} in config {@code version}, with the node-local settings the reality suite
     * changes (snapshotter, CNI directories) where they differ from Talos' defaults.
     */
    public static String basePart(int version, CriSettings settings) {
        return "version = " + version + "\n\n"
                + "[" + IMAGES + "]\n"
                + "  discard_unpacked_layers = true\n"
                + "  use_local_image_pull = true\n"
                + snapshotterLine(settings)
                + "\n"
                + "[" + RUNTIME + ".containerd.runtimes.runc]\n"
                + "  base_runtime_spec = '" + BASE_RUNTIME_SPEC + "'\n"
                + cniTable(settings, "")
                + "\n"
                + "[plugins.'io.containerd.nri.v1.nri']\n"
                + "  disable = true\n";
    }

    private static String snapshotterLine(CriSettings settings) {
        return settings.snapshotter().equals(CriSettings.TALOS.snapshotter()) ? ""
                : "  snapshotter = " + tomlString(settings.snapshotter()) + "\n";
    }

    private static String cniTable(CriSettings settings, String indent) {
        if (settings.cniBinDir().equals(CriSettings.TALOS.cniBinDir())
                && settings.cniConfDir().equals(CriSettings.TALOS.cniConfDir())) {
            return "";
        }
        return "\n" + indent + "[" + RUNTIME + ".cni]\n"
                + indent + "  bin_dir = " + tomlString(settings.cniBinDir()) + "\n"
                + indent + "  conf_dir = " + tomlString(settings.cniConfDir()) + "\n";
    }

    /** The part Talos renders from the machine config's registries (file mode 0600 on the node). */
    public static String registriesPart(String registry, Credential credential) {
        return """
                [plugins]
                  [%1$s]
                    [%1$s.registry]
                      config_path = '/etc/cri/conf.d/hosts'

                      [%1$s.registry.configs]
                %2$s""".formatted(IMAGES, authTables(registry, credential));
    }

    /** The merged file containerd imports (Talos 1.9–1.13): part headers, then the parts merged into one document. */
    public static String criToml(String registry, Credential credential) {
        return criToml(3, registry, credential, CriSettings.TALOS);
    }

    public static String criToml(int version, String registry, Credential credential, CriSettings settings) {
        String base = basePart(version, settings);
        String registries = registriesPart(registry, credential);
        return "## " + BASE_PART + " (sha256:" + sha256(base) + ")\n"
                + "## " + REGISTRIES_PART + " (sha256:" + sha256(registries) + ")\n"
                + "\n"
                + merged(version, registry, credential, settings);
    }

    /** The base part and the registries part merged into one document, as Talos' TOML encoder writes it. */
    private static String merged(int version, String registry, Credential credential, CriSettings settings) {
        return "version = " + version + "\n\n"
                + "[plugins]\n"
                + "  [" + IMAGES + "]\n"
                + "    discard_unpacked_layers = true\n"
                + snapshotterLine(settings).replace("  snapshotter", "    snapshotter")
                + "    use_local_image_pull = true\n"
                + "\n"
                + "    [" + IMAGES + ".registry]\n"
                + "      config_path = '/etc/cri/conf.d/hosts'\n"
                + "\n"
                + "      [" + IMAGES + ".registry.configs]\n"
                + authTables(registry, credential)
                + "\n"
                + "  [" + RUNTIME + "]\n"
                + cniTable(settings, "    ")
                + "    [" + RUNTIME + ".containerd]\n"
                + "      [" + RUNTIME + ".containerd.runtimes]\n"
                + "        [" + RUNTIME + ".containerd.runtimes.runc]\n"
                + "          base_runtime_spec = '" + BASE_RUNTIME_SPEC + "'\n"
                + "\n"
                + "  [plugins.'io.containerd.nri.v1.nri']\n"
                + "    disable = true\n";
    }

    /**
     * Node-local settings of the CRI plugin that Talos leaves at containerd's defaults; the reality suite
     * sets them so a real containerd runs in a temporary directory (no overlay mounts, no host CNI).
     */
    public record CriSettings(String snapshotter, String cniBinDir, String cniConfDir) {
        public static final CriSettings TALOS = new CriSettings("overlayfs", "/opt/cni/bin", "/etc/cni/net.d");
    }

    private static final String CRI_V1 = "plugins.\"io.containerd.grpc.v1.cri\"";

    /** {@link #containerdToml()} in config version 2 (containerd 1.x). */
    public static String containerdTomlV2() {
        return """
                version = 2

                disabled_plugins = [
                    "io.containerd.internal.v1.tracing",
                ]

                imports = [
                    "%s",
                ]

                [debug]
                level = "info"
                format = "json"
                """.formatted(CRI_TOML);
    }

    /** {@link #basePart()} in config version 2 (containerd 1.x). */
    public static String basePartV2(CriSettings settings) {
        return """
                version = 2

                [plugins]
                  [%1$s]
                    enable_cdi = true

                    [%1$s.containerd]
                      snapshotter = %2$s
                      discard_unpacked_layers = true

                      [%1$s.containerd.runtimes]
                        [%1$s.containerd.runtimes.runc]
                          base_runtime_spec = '/etc/cri/conf.d/base-spec.json'

                    [%1$s.cni]
                      bin_dir = %3$s
                      conf_dir = %4$s

                    [%1$s.registry]
                      config_path = '/etc/cri/conf.d/hosts'
                """.formatted(CRI_V1, tomlString(settings.snapshotter()), tomlString(settings.cniBinDir()),
                tomlString(settings.cniConfDir()));
    }

    /** {@link #registriesPart} in config version 2 (containerd 1.x). */
    public static String registriesPartV2(String registry, Credential credential) {
        return """
                [plugins]
                  [%1$s]
                    [%1$s.registry]
                      [%1$s.registry.configs]
                %2$s""".formatted(CRI_V1, authTables(CRI_V1, registry, credential));
    }

    /** {@link #criToml} in config version 2 (containerd 1.x): the part headers, then the merged parts. */
    public static String criTomlV2(String registry, Credential credential, CriSettings settings) {
        String base = basePartV2(settings);
        String registries = registriesPartV2(registry, credential);
        // Merged, the registry's auth tables follow the base part's registry table.
        return "## " + BASE_PART + " (sha256:" + sha256(base) + ")\n"
                + "## " + REGISTRIES_PART + " (sha256:" + sha256(registries) + ")\n"
                + "\n"
                + base
                + "\n"
                + "      [" + CRI_V1 + ".registry.configs]\n"
                + authTables(CRI_V1, registry, credential);
    }

    private static String authTables(String registry, Credential credential) {
        return authTables(IMAGES, registry, credential);
    }

    private static String authTables(String plugin, String registry, Credential credential) {
        String host = plugin + ".registry.configs." + tomlString(registry);
        return "        [" + host + "]\n"
                + "          [" + host + ".auth]\n"
                + "            auth = ''\n"
                + "            identitytoken = ''\n"
                + "            password = " + tomlString(credential.password()) + "\n"
                + "            username = " + tomlString(credential.username()) + "\n";
    }

    /** A TOML string: a literal string when possible (as Talos' encoder writes), else an escaped basic one. */
    static String tomlString(String value) {
        boolean literal = value.chars().noneMatch(c -> c == '\'' || c < 0x20 || c == 0x7f);
        if (literal) {
            return "'" + value + "'";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static String sha256(String text) {
        return ConfigDigest.sha256Hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
