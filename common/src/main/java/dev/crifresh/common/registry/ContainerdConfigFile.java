package dev.crifresh.common.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * One containerd config file as containerd itself reads it: its {@code version}, its {@code imports} (as
 * written; {@code ContainerdImports} resolves them) and, for each CRI plugin table containerd 1.x or 2.x
 * may read registry credentials from ({@code cri}, {@code io.containerd.grpc.v1.cri},
 * {@code io.containerd.cri.v1.images}), whether it is there and the credentials in it. Which of them
 * containerd uses depends on the version of every file it loads and on containerd's own generation:
 * {@link ContainerdReading} decides. {@link Parsed#definesSection()} and {@link Parsed#credentials()}
 * keep the file's own reading for versions 2 and 3 (containerd 1.x's section for 2, the images plugin
 * for 3 and 4).
 * <p>A version the agent does not know (below 0, above 4) is a failure. A pure function of the text, safe
 * to fuzz: it returns a failure for any bad input, never throws.
 */
public final class ContainerdConfigFile {
    static final String IMAGES_PLUGIN = "io.containerd.cri.v1.images";
    static final String CRI_V1_PLUGIN = "io.containerd.grpc.v1.cri";
    /** containerd 1.x's short name of the CRI plugin in a version 1 (or version-less) config. */
    static final String CRI_SHORT = "cri";
    /** The highest config version any containerd knows (containerd 2.2). */
    public static final int MAX_VERSION = 4;

    private ContainerdConfigFile() {
    }

    public sealed interface Result {
    }

    /**
     * @param version         the {@code version} key, 0 when absent
     * @param imports         the {@code imports} entries as written, in order
     * @param definesSection  the file has the CRI plugin table its own version selects (2: containerd 1.x's,
     *                        3 and 4: the images plugin)
     * @param credentials     the credentials in that table, sorted by host
     * @param sections        each CRI plugin table containerd may read credentials from, by plugin key
     *                        ({@code cri}, {@code io.containerd.grpc.v1.cri}, {@code io.containerd.cri.v1.images})
     * @param criRuntimes     {@code io.containerd.grpc.v1.cri} (or {@code cri}) has {@code containerd.runtimes}:
     *                        containerd 2.x's migration of an older file moves its registry only then
     * @param shortPluginKeys a plugin key without a dot (a version 1 name): containerd 1.x refuses it in a
     *                        version 2 config
     */
    public record Parsed(int version, List<String> imports, boolean definesSection, List<RegistryAuth> credentials,
                         java.util.Map<String, PluginSection> sections, boolean criRuntimes, boolean shortPluginKeys)
            implements Result {
        public Parsed {
            imports = List.copyOf(imports);
            credentials = List.copyOf(credentials);
            sections = java.util.Map.copyOf(sections);
        }

        public PluginSection section(String plugin) {
            return sections.getOrDefault(plugin, PluginSection.ABSENT);
        }
    }

    /**
     * One CRI plugin table of one file, with its {@code registry} table as containerd stores it: keys exactly as
     * written (containerd looks a credential up by the exact key, so {@code 'http://host'} and {@code 'host'} are
     * different entries, and only one of them can ever be sent; {@link PullCredentials} decides which).
     *
     * @param defined         the plugin table is there (containerd 1.x replaces an earlier file's table with it)
     * @param registryDefined its {@code registry} table is there (containerd 2.x's migration moves it whole)
     * @param configs         the {@code registry.configs.<key>.auth} entries, by raw key
     * @param deprecatedAuths the deprecated {@code registry.auths.<key>} entries, by raw key: containerd copies each
     *                        into {@code configs} (the key's host when it has a scheme), over any {@code auth} there
     * @param configPath      {@code registry.config_path} (the {@code hosts.toml} directory), null when absent
     * @param mirrors         the {@code registry.mirrors} keys (containerd's CRI refuses them beside a
     *                        {@code config_path})
     * @param tlsHosts        the {@code registry.configs} keys with a {@code tls} table (containerd 1.x's CRI refuses
     *                        them beside a {@code config_path}; 2.x has no such field)
     * @param pullProgressTimeout the table's {@code image_pull_progress_timeout}, null when absent
     */
    public record PluginSection(boolean defined, boolean registryDefined, java.util.Map<String, HostAuth> configs,
                                java.util.Map<String, HostAuth> deprecatedAuths, String configPath,
                                java.util.Set<String> mirrors, java.util.Set<String> tlsHosts,
                                String pullProgressTimeout) {
        static final PluginSection ABSENT = new PluginSection(false, false, java.util.Map.of(), java.util.Map.of(), null);

        public PluginSection {
            configs = java.util.Map.copyOf(configs);
            deprecatedAuths = java.util.Map.copyOf(deprecatedAuths);
            mirrors = java.util.Set.copyOf(mirrors);
            tlsHosts = java.util.Set.copyOf(tlsHosts);
        }

        public PluginSection(boolean defined, boolean registryDefined, java.util.Map<String, HostAuth> configs,
                             java.util.Map<String, HostAuth> deprecatedAuths, String configPath) {
            this(defined, registryDefined, configs, deprecatedAuths, configPath, java.util.Set.of(), java.util.Set.of(),
                    null);
        }

        /**
         * The {@code configs} entries by normalised host ({@link RegistryHosts}), the way the files spell them
         * (the merge view): where two keys name one host, the key spelled exactly as the host wins.
         */
        public java.util.Map<String, HostAuth> auths() {
            return byNormalisedHost(configs);
        }
    }

    static <T> java.util.Map<String, T> byNormalisedHost(java.util.Map<String, T> byRawKey) {
        java.util.Map<String, T> out = new java.util.TreeMap<>();
        byRawKey.forEach((key, value) -> {
            String host = RegistryHosts.normalise(key);
            if (key.equals(host) || !out.containsKey(host)) {
                out.put(host, value);
            }
        });
        return out;
    }

    /** One host's credential and which of its fields the file spells (containerd 2.x merges them field by field). */
    public record HostAuth(RegistryAuth auth, java.util.Set<String> fields) {
        public HostAuth {
            fields = java.util.Set.copyOf(fields);
        }
    }

    /** Why the file cannot be read as containerd would; never quotes a value (it may hold a credential). */
    public record Failed(String message) implements Result {
    }

    public static Result parse(String toml) {
        Objects.requireNonNull(toml, "toml");
        if (toml.startsWith("\uFEFF")) {
            return new Failed("the file starts with a byte-order mark: containerd 2.x refuses it (go-toml v2:"
                    + " \"invalid character at start of key\")");
        }
        JsonNode root;
        try {
            root = CriRegistryConfig.TOML.readTree(toml);
        } catch (JacksonException e) {
            return new Failed(CriRegistryConfig.describe(e));
        } catch (RuntimeException e) {
            return new Failed("malformed TOML");
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return new Parsed(0, List.of(), false, List.of(), java.util.Map.of(), false, false);
        }
        if (!root.isObject()) {
            return new Failed("not a TOML table");
        }
        try {
            ContainerdKeys.check(root);
        } catch (InvalidRegistryConfig e) {
            return new Failed(e.getMessage());
        }
        JsonNode versionNode = root.get("version");
        int version = 0;
        if (versionNode != null && !versionNode.isMissingNode()) {
            if (!versionNode.isIntegralNumber() || !versionNode.canConvertToInt()) {
                return new Failed("version is not an integer");
            }
            version = versionNode.intValue();
        }
        if (version < 0 || version > MAX_VERSION) {
            return new Failed("config version " + version + " is not one containerd 1.x or 2.x knows (0 to "
                    + MAX_VERSION + ")");
        }
        List<String> imports = new ArrayList<>();
        Failed badImports = readImports(root.get("imports"), imports);
        if (badImports != null) {
            return badImports;
        }
        try {
            return parsed(root, version, imports);
        } catch (InvalidRegistryConfig e) {
            return new Failed(e.getMessage());
        }
    }

    /** Adds the {@code imports} to {@code imports}; why they cannot be read, or null when they can. */
    private static Failed readImports(JsonNode importsNode, List<String> imports) {
        if (importsNode != null && !importsNode.isMissingNode()) {
            if (!importsNode.isArray()) {
                return new Failed("imports is not an array");
            }
            for (JsonNode entry : importsNode) {
                if (!entry.isString()) {
                    return new Failed("imports holds a value that is not a string");
                }
                imports.add(entry.stringValue());
            }
        }
        return null;
    }

    /** The file's plugin sections, once its version and imports are read. */
    private static Parsed parsed(JsonNode root, int version, List<String> imports) throws InvalidRegistryConfig {
        JsonNode plugins = CriRegistryConfig.table(root.get("plugins"), KeyPath.root("plugins"));
        java.util.Map<String, PluginSection> sections = new java.util.TreeMap<>();
        boolean runtimes = false;
        boolean shortKeys = false;
        if (plugins != null) {
            for (String plugin : List.of(CRI_SHORT, CRI_V1_PLUGIN, IMAGES_PLUGIN)) {
                if (plugins.get(plugin) != null) {
                    sections.put(plugin, section(plugins, plugin));
                }
            }
            for (String plugin : List.of(CRI_SHORT, CRI_V1_PLUGIN)) {
                JsonNode containerd = plugins.path(plugin).path("containerd");
                runtimes |= containerd.isObject() && containerd.get("runtimes") != null;
            }
            for (java.util.Map.Entry<String, JsonNode> e : plugins.properties()) {
                shortKeys |= !e.getKey().contains(".");
            }
        }
        String own = version >= 3 ? IMAGES_PLUGIN : version == 2 ? CRI_V1_PLUGIN : null;
        PluginSection mine = own == null ? PluginSection.ABSENT : sections.getOrDefault(own, PluginSection.ABSENT);
        List<RegistryAuth> credentials = mine.auths().values().stream().map(HostAuth::auth)
                .sorted(java.util.Comparator.comparing(RegistryAuth::host)).toList();
        return new Parsed(version, imports, mine.defined(), credentials, sections, runtimes, shortKeys);
    }

    private static PluginSection section(JsonNode plugins, String plugin) throws InvalidRegistryConfig {
        KeyPath at = KeyPath.root("plugins").child(plugin);
        JsonNode table = CriRegistryConfig.table(plugins.get(plugin), at);
        String timeout = table == null ? null : optionalString(table, "image_pull_progress_timeout", at);
        JsonNode registry = table == null ? null : CriRegistryConfig.table(table.get("registry"), at.child("registry"));
        if (registry == null) {
            return new PluginSection(table != null, false, java.util.Map.of(), java.util.Map.of(), null,
                    java.util.Set.of(), java.util.Set.of(), timeout);
        }
        KeyPath reg = at.child("registry");
        java.util.Map<String, HostAuth> configs = new java.util.TreeMap<>();
        java.util.Set<String> tlsHosts = new java.util.TreeSet<>();
        JsonNode configsNode = CriRegistryConfig.table(registry.get("configs"), reg.child("configs"));
        if (configsNode != null) {
            for (java.util.Map.Entry<String, JsonNode> e : configsNode.properties()) {
                KeyPath hostPath = reg.child("configs").hostChild(e.getKey());
                JsonNode hostConfig = CriRegistryConfig.table(e.getValue(), hostPath);
                JsonNode auth = CriRegistryConfig.table(hostConfig.get("auth"), hostPath.child("auth"));
                if (auth != null) {
                    configs.put(e.getKey(), hostAuth(e.getKey(), auth, hostPath.child("auth")));
                }
                if (CriRegistryConfig.table(hostConfig.get("tls"), hostPath.child("tls")) != null) {
                    tlsHosts.add(e.getKey());
                }
            }
        }
        java.util.Map<String, HostAuth> auths = new java.util.TreeMap<>();
        JsonNode authsNode = CriRegistryConfig.table(registry.get("auths"), reg.child("auths"));
        if (authsNode != null) {
            for (java.util.Map.Entry<String, JsonNode> e : authsNode.properties()) {
                KeyPath hostPath = reg.child("auths").hostChild(e.getKey());
                auths.put(e.getKey(), hostAuth(e.getKey(), CriRegistryConfig.table(e.getValue(), hostPath), hostPath));
            }
        }
        java.util.Set<String> mirrors = new java.util.TreeSet<>();
        JsonNode mirrorsNode = CriRegistryConfig.table(registry.get("mirrors"), reg.child("mirrors"));
        if (mirrorsNode != null) {
            mirrorsNode.properties().forEach(e -> mirrors.add(e.getKey()));
        }
        String configPath = optionalString(registry, "config_path", reg);
        return new PluginSection(true, true, configs, auths, configPath, mirrors, tlsHosts, timeout);
    }

    /** A string field, null when absent; any other type is a doubt (containerd fails to decode it and refuses). */
    private static String optionalString(JsonNode table, String field, KeyPath at) throws InvalidRegistryConfig {
        JsonNode value = table.get(field);
        if (value == null || value.isMissingNode() || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new InvalidRegistryConfig(at.child(field) + " is not a string");
        }
        return value.stringValue();
    }

    private static HostAuth hostAuth(String rawKey, JsonNode auth, KeyPath path) throws InvalidRegistryConfig {
        java.util.Set<String> fields = new java.util.TreeSet<>();
        auth.properties().forEach(f -> fields.add(f.getKey()));
        return new HostAuth(AuthEntry.containerd(rawKey, auth, path), fields);
    }
}
