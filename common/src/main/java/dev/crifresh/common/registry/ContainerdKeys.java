package dev.crifresh.common.registry;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The keys of a containerd config file that containerd might decode into a field the agent does not read. containerd
 * 2.x decodes with go-toml v2, whose {@code structFieldPath} (pelletier/go-toml {@code unmarshaler.go}) matches a key
 * to a struct field by its exact name, else by {@code strings.ToLower(key)}, at every struct level, and warns about
 * none; containerd 1.6 and 1.7 decode with go-toml v1, which tries the name, its lower case and its upper case. The
 * agent reads exact lower-case names only, so a key that is not a field's exact name but equals one in any case
 * folding is a doubt, in every generation. Map keys (plugin ids, registry hosts) are data and exact; a key that is no
 * field at all is ignored by containerd and by the agent.
 * <p>The fields are the union of the {@code toml} tags in containerd 1.6.20, 1.7.24, 2.2.7 and 2.3.4
 * ({@code Config} in {@code services/server/config/config.go} (1.x) and {@code cmd/containerd/server/config/config.go}
 * (2.x); {@code PluginConfig}, {@code ImageConfig}, {@code RuntimeConfig}, {@code ServerConfig}, {@code Registry},
 * {@code RegistryConfig}, {@code AuthConfig}, {@code TLSConfig}, {@code Mirror} in {@code pkg/cri/config/config.go}
 * (1.x) and {@code internal/cri/config/config.go} (2.x)), so a name known to any generation counts.
 */
final class ContainerdKeys {
    /** A struct level: its field names, and the levels below some of them. */
    private record Level(Set<String> fields, Map<String, Child> children) {
    }

    /** A field whose value is a struct ({@code map == false}) or a map of structs keyed by data. */
    private record Child(Level level, boolean map) {
    }

    private static final Level AUTH = new Level(Set.of("username", "password", "auth", "identitytoken"), Map.of());
    private static final Level TLS = new Level(Set.of("insecure_skip_verify", "ca_file", "cert_file", "key_file"),
            Map.of());
    private static final Level MIRROR = new Level(Set.of("endpoint"), Map.of());
    private static final Level HOST_CONFIG = new Level(Set.of("auth", "tls"),
            Map.of("auth", new Child(AUTH, false), "tls", new Child(TLS, false)));
    private static final Level REGISTRY = new Level(Set.of("config_path", "mirrors", "configs", "auths", "headers"),
            Map.of("configs", new Child(HOST_CONFIG, true), "auths", new Child(AUTH, true),
                    "mirrors", new Child(MIRROR, true)));
    /** Every CRI plugin table: 1.x's PluginConfig, 2.x's ImageConfig, RuntimeConfig and ServerConfig. */
    private static final Level CRI = new Level(Set.of(
            // 1.x PluginConfig
            "containerd", "cni", "registry", "image_decryption", "disable_tcp_service", "stream_server_address",
            "stream_server_port", "stream_idle_timeout", "enable_selinux", "selinux_category_range", "sandbox_image",
            "stats_collect_period", "systemd_cgroup", "enable_tls_streaming", "x509_key_pair_streaming",
            "max_container_log_line_size", "disable_cgroup", "disable_apparmor", "restrict_oom_score_adj",
            "max_concurrent_downloads", "disable_proc_mount", "unset_seccomp_profile",
            "tolerate_missing_hugetlb_controller", "disable_hugetlb_controller",
            "device_ownership_from_security_context", "ignore_image_defined_volumes", "netns_mounts_under_state_dir",
            "enable_unprivileged_ports", "enable_unprivileged_icmp", "enable_cdi", "cdi_spec_dirs",
            "image_pull_progress_timeout", "drain_exec_sync_io_timeout", "image_pull_with_sync_fs",
            "ignore_deprecation_warnings",
            // 2.x ImageConfig, RuntimeConfig (beyond the above)
            "snapshotter", "disable_snapshot_annotations", "discard_unpacked_layers", "pinned_images",
            "runtime_platforms", "concurrent_layer_fetch_buffer", "use_local_image_pull", "stats_retention_period",
            "enable_criu", "enable_experimental_restore_via_create"),
            Map.of("registry", new Child(REGISTRY, false)));
    private static final Set<String> CRI_PLUGINS = Set.of(ContainerdConfigFile.CRI_SHORT,
            ContainerdConfigFile.CRI_V1_PLUGIN, ContainerdConfigFile.IMAGES_PLUGIN);
    private static final Level ROOT = new Level(Set.of("version", "root", "state", "temp", "plugin_dir", "grpc",
            "ttrpc", "debug", "metrics", "disabled_plugins", "required_plugins", "plugins", "oom_score", "cgroup",
            "proxy_plugins", "timeouts", "imports", "stream_processors"), Map.of());

    private ContainerdKeys() {
    }

    /** Fails on the first key that differs from a field's name only in case, naming its path and the field. */
    static void check(JsonNode root) throws InvalidRegistryConfig {
        check(root, ROOT, null);
        JsonNode plugins = root.get("plugins");
        if (plugins != null && plugins.isObject()) {
            for (Map.Entry<String, JsonNode> e : plugins.properties()) {
                if (CRI_PLUGINS.contains(e.getKey())) {
                    check(e.getValue(), CRI, KeyPath.root("plugins").child(e.getKey()));
                }
            }
        }
    }

    private static void check(JsonNode node, Level level, KeyPath at) throws InvalidRegistryConfig {
        if (node == null || !node.isObject()) {
            return;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String key = e.getKey();
            KeyPath path = at == null ? KeyPath.root(key) : at.child(key);
            if (!level.fields().contains(key)) {
                for (String field : level.fields()) {
                    if (sameIgnoringCase(key, field)) {
                        throw new InvalidRegistryConfig(path + " differs only in case from containerd's field "
                                + field + ": containerd 2.x decodes it into that field (go-toml v2 matches a key"
                                + " case-insensitively), 1.x may not, and the agent reads exact names only");
                    }
                }
                continue;
            }
            Child child = level.children().get(key);
            if (child == null) {
                continue;
            }
            if (!child.map()) {
                check(e.getValue(), child.level(), path);
            } else if (e.getValue() != null && e.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> entry : e.getValue().properties()) {
                    check(entry.getValue(), child.level(), path.hostChild(entry.getKey()));
                }
            }
        }
    }

    /**
     * Go's {@code strings.ToLower} maps rune by rune ({@code unicode.ToLower}, so {@code 'İ'} becomes {@code 'i'}
     * and the Kelvin sign {@code 'k'}); {@link Character#toLowerCase(int)} is the same simple mapping. Java's
     * {@code equalsIgnoreCase} is checked too: stricter is safe.
     */
    static boolean sameIgnoringCase(String key, String field) {
        return key.equalsIgnoreCase(field) || goLower(key).equals(goLower(field))
                || key.toLowerCase(Locale.ROOT).equals(field);
    }

    private static String goLower(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> out.appendCodePoint(Character.toLowerCase(c)));
        return out.toString();
    }
}
