package dev.crifresh.sim.node;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.sim.scenario.Credential;
import java.nio.charset.StandardCharsets;

/**
 * The CRI config files of a Talos node, as text: {@code /etc/cri/containerd.toml} (imports the merged
 * file), the parts {@code /etc/cri/conf.d/00-base.part} and {@code 01-registries.part} (registry auth),
 * and the merged {@code /etc/cri/conf.d/cri.toml} that Talos renders from the parts, headed by one
 * {@code ## <path> (sha256:<hex>)} line per part. Pure rendering, no I/O.
 *
 * <p>Two generations: the default methods render config version 3 (containerd 2.x, Talos 1.9 and later);
 * the {@code …V2} methods render the same layout in config version 2, the CRI plugin as
 * {@code io.containerd.grpc.v1.cri} (containerd 1.x, Talos 1.8 and earlier), which the real containerd 1.6
 * of the reality suite loads.
 */
public final class TalosConfigFiles {
    public static final String CONTAINERD_TOML = "/etc/cri/containerd.toml";
    public static final String CRI_TOML = "/etc/cri/conf.d/cri.toml";
    public static final String BASE_PART = "/etc/cri/conf.d/00-base.part";
    public static final String REGISTRIES_PART = "/etc/cri/conf.d/01-registries.part";

    private static final String IMAGES = "plugins.'io.containerd.cri.v1.images'";

    private TalosConfigFiles() {
    }

    public static String containerdToml() {
        return """
                version = 3

                disabled_plugins = [
                    "io.containerd.differ.v1.erofs",
                    "io.containerd.internal.v1.tracing",
                    "io.containerd.snapshotter.v1.erofs",
                ]

                imports = [
                    "%s",
                ]

                [debug]
                level = "info"
                format = "json"
                """.formatted(CRI_TOML);
    }

    public static String basePart() {
        return """
                version = 3

                [plugins]
                  [%1$s]
                    discard_unpacked_layers = true

                    [%1$s.registry]
                      config_path = '/etc/cri/conf.d/hosts'

                  [plugins.'io.containerd.cri.v1.runtime']
                    enable_cdi = true

                    [plugins.'io.containerd.cri.v1.runtime'.containerd]
                      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]
                        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
                          base_runtime_spec = '/etc/cri/conf.d/base-spec.json'
                """.formatted(IMAGES);
    }

    /** The part Talos renders from the machine config's registry auth (file mode 0600 on the node). */
    public static String registriesPart(String registry, Credential credential) {
        return """
                [plugins]
                  [%1$s]
                    [%1$s.registry]
                      [%1$s.registry.configs]
                %2$s""".formatted(IMAGES, authTables(registry, credential));
    }

    /** The merged file containerd imports: part headers, then the parts merged into one document. */
    public static String criToml(String registry, Credential credential) {
        String base = basePart();
        String registries = registriesPart(registry, credential);
        return "## " + BASE_PART + " (sha256:" + sha256(base) + ")\n"
                + "## " + REGISTRIES_PART + " (sha256:" + sha256(registries) + ")\n"
                + "\n"
                + """
                version = 3

                [plugins]
                  [%1$s]
                    discard_unpacked_layers = true

                    [%1$s.registry]
                      config_path = '/etc/cri/conf.d/hosts'

                      [%1$s.registry.configs]
                %2$s
                  [plugins.'io.containerd.cri.v1.runtime']
                    enable_cdi = true

                    [plugins.'io.containerd.cri.v1.runtime'.containerd]
                      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]
                        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
                          base_runtime_spec = '/etc/cri/conf.d/base-spec.json'
                """.formatted(IMAGES, authTables(registry, credential));
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
