package dev.crifresh.reality;

import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.node.TalosConfigFiles.Layout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded config shapes for the differential test: one node's containerd config (the root containerd is started
 * with, its imports, {@code hosts.toml} files), each registry host of the {@link RecordingRegistry} configured its
 * own way. Talos' own layouts (the files Talos renders for that containerd, {@link TalosConfigFiles}: the root, the
 * merged {@code cri.toml}, {@code hosts.toml} for a mirror; a credential in {@code configs.'<host>'.auth} either as
 * {@code username}/{@code password} or as {@code auth}, as Talos writes {@code machine.registries.config} and the
 * {@code RegistryAuthConfig} document) and generic ones: key case at each level, base64 forms, config versions
 * 0–4 of the root and the imports, {@code imports} absolute, relative and by glob, {@code config_path} absent
 * (containerd 2.x's default directories), one directory or a list, {@code hosts.toml} keys and tables, dotted,
 * quoted, inline and duplicate keys, and values the CRI plugin refuses. Same seed, same generation, same hosts:
 * same files.
 */
@SuppressWarnings("checkstyle:filelength") // one generator: its draws in a fixed order, so that a seed replays
final class ShapeGenerator {
    static final String CONF_D = "/etc/cri/conf.d";
    static final String HOSTS_DIR = "/etc/cri/conf.d/hosts";
    private static final String GRPC = "\"io.containerd.grpc.v1.cri\"";
    private static final String IMAGES = "\"io.containerd.cri.v1.images\"";
    private static final String PASSWORD_CHARS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789~?>!";

    /**
     * One node's config.
     *
     * @param seed     replays it ({@code -Dcrifresh.differential.replay=<seed>})
     * @param talos    one of Talos' own layouts, unchanged (the agent runs in Talos mode there)
     * @param files    node path → text, the root config {@link DifferentialContainerd#CONFIG} first
     * @param hosts    the hosts a pull is judged for (one shape each), then the mirror host no pull names
     * @param secrets  the credential texts the files spell, in every spelling (masked when the files are shown)
     * @param labels   "username:password" → a name for it ({@code host2 A}), to say which one a pull sent
     * @param summary  what the generator chose, in one line per host
     */
    record Node(long seed, boolean talos, Map<String, String> files, List<String> hosts, List<String> secrets,
                Map<String, String> labels, List<String> summary) {
        /** The files as text with every credential masked. */
        String show() {
            StringBuilder out = new StringBuilder();
            files.forEach((path, text) -> {
                String masked = text;
                for (String s : secrets) {
                    if (!s.isEmpty()) {
                        masked = masked.replace(s, "<secret>");
                    }
                }
                out.append("    --- ").append(path).append('\n');
                masked.lines().forEach(l -> out.append("    ").append(l).append('\n'));
            });
            return out.toString();
        }
    }

    private final Random random;
    private final long seed;
    private final ContainerdGeneration generation;
    private final List<String> hosts;
    private final String mirror;
    /** How exotic this node is: scales every odd choice, so most nodes keep most hosts plain and some are wild. */
    private final double spice;
    private boolean duplicated;
    private final Map<String, String> files = new LinkedHashMap<>();
    private final List<String> secrets = new ArrayList<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<String> summary = new ArrayList<>();

    private ShapeGenerator(long seed, ContainerdGeneration generation, List<String> hosts, String mirror) {
        this.seed = seed;
        this.random = new Random(seed);
        this.generation = generation;
        this.hosts = hosts;
        this.mirror = mirror;
        this.spice = new double[] {0.2, 0.6, 1.5}[random.nextInt(3)];
    }

    /** The node of {@code seed} for {@code generation}, configuring {@code hosts} (and {@code mirror} as a mirror). */
    static Node generate(long seed, ContainerdGeneration generation, List<String> hosts, String mirror) {
        return new ShapeGenerator(seed, generation, hosts, mirror).build();
    }

    private Node build() {
        boolean talos = random.nextInt(10) < 3;
        if (talos) {
            talos();
        } else {
            generic();
        }
        List<String> all = new ArrayList<>(hosts);
        all.add(mirror);
        Map<String, String> ordered = new LinkedHashMap<>();
        ordered.put(DifferentialContainerd.CONFIG, files.get(DifferentialContainerd.CONFIG));
        files.forEach(ordered::putIfAbsent);
        return new Node(seed, talos, ordered, all, secrets, labels, summary);
    }

    // ---- Talos' own layouts ----

    private void talos() {
        Layout layout = generation.layout();
        if (generation.name().equals("2.3") && random.nextBoolean()) {
            layout = Layout.TALOS_1_15;
        }
        files.put(DifferentialContainerd.CONFIG, layout.containerdToml());
        int version = layout.version();
        boolean one = version == 2;
        String plugin = one ? "plugins." + GRPC : "plugins." + IMAGES;
        StringBuilder cri = new StringBuilder("## 00-base.part\n## 01-registries.part\n\nversion = " + version + "\n\n");
        cri.append("[plugins]\n  [").append(plugin).append("]\n");
        if (one) {
            cri.append("    [").append(plugin).append(".containerd]\n      snapshotter = 'native'\n");
        } else {
            cri.append("    discard_unpacked_layers = true\n    snapshotter = 'native'\n    use_local_image_pull = true\n");
        }
        cri.append("\n    [").append(plugin).append(".registry]\n      config_path = '").append(HOSTS_DIR)
                .append("'\n\n      [").append(plugin).append(".registry.configs]\n");
        for (int i = 0; i < hosts.size(); i++) {
            String host = hosts.get(i);
            String[] cred = credential(i, "A");
            int way = random.nextInt(3);
            String line = "host" + i + ": Talos " + layout.release();
            if (way == 0) {
                line += ", no credential";
            } else {
                String t = plugin + ".registry.configs.'" + host + "'";
                cri.append("        [").append(t).append("]\n          [").append(t).append(".auth]\n");
                if (way == 1) {
                    line += ", username/password (machine.registries.config)";
                    cri.append("            auth = ''\n            identitytoken = ''\n            password = ")
                            .append(q(cred[1])).append("\n            username = ").append(q(cred[0])).append('\n');
                } else {
                    line += ", auth (RegistryAuthConfig)";
                    String b64 = b64(cred, "padded");
                    cri.append("            auth = ").append(q(b64)).append("\n            identitytoken = ''\n")
                            .append("            password = ''\n            username = ''\n");
                }
            }
            if (random.nextInt(4) == 0) {
                line += ", Talos mirror hosts.toml";
                // machine.registries.mirrors: Talos writes one host table per endpoint, skip_verify/ca only if set
                files.put(HOSTS_DIR + "/" + host + "/hosts.toml", "[host.'http://" + host + "']\n"
                        + "  capabilities = ['pull', 'resolve']\n");
            }
            summary.add(line);
        }
        cri.append("\n  [plugins.'io.containerd.nri.v1.nri']\n    disable = true\n");
        files.put(TalosConfigFiles.CRI_TOML, cri.toString());
        files.put(TalosConfigFiles.BASE_RUNTIME_SPEC, "{\"ociVersion\":\"1.0.2-dev\"}\n");
    }

    // ---- generic layouts ----

    /** One config file being written: its version, how it spells the top-level keys, its text. */
    private final class File {
        final String path;
        final int version;
        final String pluginsKey;
        final String imagesPlugin;
        final StringBuilder registryText = new StringBuilder();
        final StringBuilder registryTable = new StringBuilder();
        final List<String> imports = new ArrayList<>();
        final String importsKey;
        final String versionKey;
        final String extraPluginTable;

        File(String path, int version) {
            this.path = path;
            this.version = version;
            this.pluginsKey = chance(12) ? "Plugins" : "plugins";
            this.importsKey = chance(12) ? "Imports" : "imports";
            this.versionKey = chance(12) ? "Version" : "version";
            // where the registry sits: the CRI plugin of the file's version (a legacy one now and then)
            this.imagesPlugin = version <= 1 ? "cri" : version == 2 ? GRPC : chance(20) ? GRPC : IMAGES;
            this.extraPluginTable = chance(15) ? "bogus-timeout" : "";
        }

        String plugin() {
            return pluginsKey + "." + imagesPlugin;
        }

        /** The CRI plugin of this file's version, which holds the snapshotter setting. */
        String base() {
            return version <= 1 ? pluginsKey + ".cri" : version == 2 ? pluginsKey + "." + GRPC
                    : pluginsKey + "." + IMAGES;
        }

        /** An invalid value in the plugin that holds the registry (its Init fails on 1.7 and later). */
        boolean bogus() {
            return extraPluginTable.equals("bogus-timeout") && base().equals(plugin());
        }

        String render() {
            StringBuilder out = new StringBuilder();
            if (version > 0) {
                out.append(versionKey).append(" = ").append(version).append('\n');
            }
            if (!imports.isEmpty()) {
                out.append(importsKey).append(" = [");
                out.append(String.join(", ", imports.stream().map(ShapeGenerator::q).toList()));
                out.append("]\n");
            }
            // the settings a containerd needs in a temporary root, in this file's own dialect
            String base = base();
            if (version <= 2) {
                out.append("[").append(base).append(".containerd]\n  snapshotter = \"native\"\n");
                if (bogus()) {
                    out.append("[").append(base).append("]\n  image_pull_progress_timeout = 'bogus'\n");
                }
            } else {
                out.append("[").append(base).append("]\n  snapshotter = \"native\"\n");
                if (bogus()) {
                    out.append("  image_pull_progress_timeout = 'bogus'\n");
                }
            }
            if (!registryTable.isEmpty()) {
                out.append("[").append(plugin()).append(".registry]\n").append(registryTable);
            }
            out.append(registryText);
            return out.toString();
        }
    }

    private void generic() {
        int rootVersion = version();
        File root = new File(DifferentialContainerd.CONFIG, rootVersion);
        List<File> all = new ArrayList<>(List.of(root));
        int importCount = random.nextInt(3);
        String importForm = pick(new String[] {"absolute", "absolute", "relative", "glob"});
        for (int i = 0; i < importCount; i++) {
            String name = "2" + i + "-differential.toml";
            String path = CONF_D + "/" + name;
            File f = new File(path, version());
            all.add(f);
            switch (importForm) {
                case "absolute" -> root.imports.add(path);
                case "relative" -> root.imports.add("conf.d/" + name);
                default -> {
                    if (i == 0) {
                        root.imports.add(CONF_D + "/*-differential.toml");
                    }
                }
            }
        }
        String head = "versions " + all.stream().map(f -> Integer.toString(f.version)).toList()
                + (importCount > 0 ? ", imports " + importForm : "")
                + all.stream().map(f -> f.pluginsKey.equals("Plugins") || f.importsKey.equals("Imports")
                        || f.versionKey.equals("Version") ? " " + f.path + " capitalised top-level keys" : "")
                        .reduce("", String::concat);
        // hosts directories: none (the default ones on 2.x), one, or a list
        String hostsChoice = plainOr(random.nextBoolean() ? "none" : "one", new String[] {"list", "default"});
        List<String> hostDirs = switch (hostsChoice) {
            case "one" -> List.of(HOSTS_DIR);
            case "list" -> List.of(HOSTS_DIR, "/etc/cri/conf.d/hosts2");
            case "default" -> List.of(random.nextBoolean() ? "/etc/containerd/certs.d" : "/etc/docker/certs.d");
            default -> List.of();
        };
        File registryHome = all.get(random.nextInt(all.size()));
        if (hostsChoice.equals("one") || hostsChoice.equals("list")) {
            registryHome.registryTable.append("  ").append(key("config_path", 10)).append(" = ")
                    .append(q(String.join(":", hostDirs))).append('\n');
        }
        boolean mirrorsBeside = !hostDirs.isEmpty() && !hostsChoice.equals("default") && chance(15);
        head += ", hosts " + hostsChoice + (mirrorsBeside ? " with mirrors beside config_path" : "")
                + all.stream().filter(File::bogus)
                .map(f -> ", image_pull_progress_timeout 'bogus' in " + f.path).reduce("", String::concat);
        summary.add(head);
        for (int i = 0; i < hosts.size(); i++) {
            File f = random.nextInt(3) == 0 ? all.get(random.nextInt(all.size())) : registryHome;
            hostShape(i, hosts.get(i), f, hostDirs, mirrorsBeside);
        }
        if (chance(5)) {
            // the mirror host's own credential, so a pull sent there shows it
            File f = all.get(random.nextInt(all.size()));
            String[] cred = credential(hosts.size(), "M");
            f.registryText.append("[").append(f.plugin()).append(".registry.configs.").append(q(mirror))
                    .append(".auth]\n  username = ").append(q(cred[0])).append("\n  password = ").append(q(cred[1]))
                    .append('\n');
            summary.add("mirror host has a credential");
        }
        for (File f : all) {
            files.put(f.path, f.render());
        }
    }

    private int version() {
        boolean two = generation.two();
        int[] weights = two ? new int[] {1, 1, 3, 6, generation.name().equals("2.3") ? 3 : 1}
                : new int[] {1, 1, 8, 1, 0};
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int r = random.nextInt(total);
        for (int v = 0; v < weights.length; v++) {
            r -= weights[v];
            if (r < 0) {
                return v;
            }
        }
        throw new IllegalStateException("unreachable");
    }

    @SuppressWarnings("checkstyle:methodlength") // the draws for one host in a fixed order: a seed replays only while the order stays
    private void hostShape(int i, String host, File f, List<String> hostDirs, boolean mirrorsBeside) {
        StringBuilder line = new StringBuilder("host" + i + " in " + f.path + ":");
        String[] a = credential(i, "A");
        String[] b = credential(i, "B");
        String registry = key("registry", 10);
        String hostKey = chance(20) ? q("http://" + host) : random.nextInt(4) == 0 ? "'" + host + "'" : q(host);
        String configsKey = key("configs", 10);
        String configs = f.plugin() + "." + registry + "." + configsKey + "." + hostKey;
        String auth = key("auth", 8);
        String username = key("username", 8);
        String password = key("password", 8);
        String kind = pick(new String[] {"none", "userpass", "userpass", "userpass", "b64", "b64", "b64", "both",
                "auths", "auths-and-configs"});
        String form = plainOr("table", new String[] {"dotted", "inline", "quoted"});
        line.append(" ").append(kind).append(" as ").append(form).append(", keys ").append(registry).append("/")
                .append(configsKey)
                .append("/").append(auth).append("/").append(username).append("/").append(password)
                .append(", host key ").append(hostKey.replace(host, "H"));
        List<String[]> fields = new ArrayList<>();
        switch (kind) {
            case "userpass" -> {
                fields.add(new String[] {username, q(a[0])});
                fields.add(new String[] {password, q(a[1])});
            }
            case "b64" -> {
                String variant = b64Variant();
                line.append(" base64 ").append(variant);
                fields.add(new String[] {key("auth", 8), b64Toml(a, variant)});
            }
            case "both" -> {
                String variant = b64Variant();
                line.append(" base64 ").append(variant);
                fields.add(new String[] {key("auth", 8), b64Toml(b, variant)});
                fields.add(new String[] {username, q(a[0])});
                fields.add(new String[] {password, q(a[1])});
            }
            default -> {
            }
        }
        if (kind.startsWith("auths")) {
            String auths = key("auths", 10);
            line.append(" (").append(auths).append(")");
            f.registryText.append("[").append(f.plugin()).append(".").append(registry).append(".").append(auths)
                    .append(".").append(q("http://" + host)).append("]\n  ").append(username).append(" = ")
                    .append(q(b[0])).append("\n  ").append(password).append(" = ").append(q(b[1])).append('\n');
            if (kind.equals("auths-and-configs")) {
                fields.add(new String[] {username, q(a[0])});
                fields.add(new String[] {password, q(a[1])});
            }
        }
        if (!fields.isEmpty()) {
            if (!duplicated && chance(30)) {
                duplicated = true;
                fields.add(fields.get(0)); // a duplicate key: not valid TOML
                line.append(", duplicate key");
            }
            StringBuilder t = f.registryText;
            switch (form) {
                case "dotted" -> {
                    t.append("[").append(configs).append("]\n");
                    fields.forEach(kv -> t.append("  ").append(auth).append(".").append(kv[0]).append(" = ")
                            .append(kv[1]).append('\n'));
                }
                case "inline" -> {
                    t.append("[").append(configs).append("]\n  ").append(auth).append(" = { ");
                    t.append(String.join(", ", fields.stream().map(kv -> kv[0] + " = " + kv[1]).toList()));
                    t.append(" }\n");
                }
                case "quoted" -> {
                    t.append("[").append(configs).append(".").append(q(auth)).append("]\n");
                    fields.forEach(kv -> t.append("  ").append(q(kv[0])).append(" = ").append(kv[1]).append('\n'));
                }
                default -> {
                    t.append("[").append(configs).append(".").append(auth).append("]\n");
                    fields.forEach(kv -> t.append("  ").append(kv[0]).append(" = ").append(kv[1]).append('\n'));
                }
            }
        }
        if (mirrorsBeside && i == 0) {
            f.registryText.append("[").append(f.plugin()).append(".").append(registry).append(".mirrors.")
                    .append(q(host)).append("]\n  endpoint = [").append(q("http://" + host)).append("]\n");
        }
        if (!hostDirs.isEmpty() && random.nextInt(5) < 3) {
            String dir = hostDirs.get(random.nextInt(hostDirs.size()));
            String name = chance(8) ? host.replace(":", "_") + "_" : chance(20) ? "_default" : host;
            String toml = hostsToml(host, line);
            files.put(dir + "/" + name + "/hosts.toml", toml);
            line.append(" in ").append(dir).append("/").append(name.replace(host.replace(":", "_"), "H_")
                    .replace(host, "H"));
        }
        summary.add(line.toString());
    }

    private String hostsToml(String host, StringBuilder line) {
        String variant = plainOr("plain", new String[] {"Server", "referrers", "pull-only",
                "resolve-only", "missing-ca", "missing-client", "mirror", "mirror-only", "server-only", "invalid",
                "header"});
        line.append(", hosts.toml ").append(variant);
        String server = "server = " + q("http://" + host) + "\n";
        String table = "[host." + q("http://" + host) + "]\n";
        return switch (variant) {
            case "Server" -> "Server = " + q("http://" + host) + "\n" + table + "  capabilities = [\"pull\", \"resolve\"]\n";
            case "referrers" -> server + table + "  capabilities = [\"pull\", \"resolve\", \"referrers\"]\n";
            case "pull-only" -> server + table + "  capabilities = [\"pull\"]\n";
            case "resolve-only" -> server + table + "  capabilities = [\"resolve\"]\n";
            case "missing-ca" -> server + table + "  capabilities = [\"pull\", \"resolve\"]\n  ca = \"/etc/missing-ca.pem\"\n";
            case "missing-client" -> server + table + "  capabilities = [\"pull\", \"resolve\"]\n"
                    + "  client = [[\"/etc/missing.crt\", \"/etc/missing.key\"]]\n";
            case "mirror" -> server + "[host." + q("http://" + mirror) + "]\n  capabilities = [\"pull\", \"resolve\"]\n";
            case "mirror-only" -> "server = " + q("http://" + mirror) + "\n";
            case "server-only" -> server;
            case "invalid" -> server + server;
            case "header" -> server + table + "  capabilities = [\"pull\", \"resolve\"]\n"
                    + "[host." + q("http://" + host) + ".header]\n  x-differential = \"1\"\n";
            default -> server + table + "  capabilities = [\"pull\", \"resolve\"]\n";
        };
    }

    // ---- credentials and base64 ----

    /** The host's credential named {@code which}: a username and a password drawn from the seed. */
    private String[] credential(int host, String which) {
        String user = "u" + host + which.toLowerCase() + random.nextInt(1000);
        StringBuilder pass = new StringBuilder();
        int n = 6 + random.nextInt(10);
        for (int k = 0; k < n; k++) {
            pass.append(PASSWORD_CHARS.charAt(random.nextInt(PASSWORD_CHARS.length())));
        }
        String p = pass.toString();
        secrets.add(p);
        labels.put(user + ":" + p, "host" + host + " " + which);
        return new String[] {user, p};
    }

    private String b64Variant() {
        return plainOr("padded", new String[] {"unpadded", "space", "tab", "newline", "crlf", "url-safe"});
    }

    /** The base64 of {@code user:password} in {@code variant}, as a TOML string. */
    private String b64Toml(String[] cred, String variant) {
        String b64 = b64(cred, variant);
        secrets.add(b64);
        String toml = q(b64);
        secrets.add(toml.substring(1, toml.length() - 1));
        return toml;
    }

    private String b64(String[] cred, String variant) {
        byte[] raw = (cred[0] + ":" + cred[1]).getBytes(StandardCharsets.UTF_8);
        String padded = Base64.getEncoder().encodeToString(raw);
        int mid = padded.length() / 2;
        String out = switch (variant) {
            case "unpadded" -> padded.replace("=", "");
            case "space" -> padded.substring(0, mid) + " " + padded.substring(mid);
            case "tab" -> padded.substring(0, mid) + "\t" + padded.substring(mid);
            case "newline" -> padded.substring(0, mid) + "\n" + padded.substring(mid);
            case "crlf" -> padded.substring(0, mid) + "\r\n" + padded.substring(mid);
            case "url-safe" -> Base64.getUrlEncoder().encodeToString(raw);
            default -> padded;
        };
        secrets.add(out);
        return out;
    }

    // ---- helpers ----

    /** {@code name}, capitalised with probability 1/{@code odds} (go-toml v2 matches it case-insensitively). */
    private String key(String name, int odds) {
        if (!chance(odds)) {
            return name;
        }
        return switch (random.nextInt(3)) {
            case 0 -> Character.toUpperCase(name.charAt(0)) + name.substring(1);
            case 1 -> name.toUpperCase(java.util.Locale.ROOT);
            default -> name.equals("config_path") ? "Config_Path" : name.substring(0, name.length() - 1)
                    + Character.toUpperCase(name.charAt(name.length() - 1));
        };
    }

    private boolean chance(int odds) {
        return random.nextDouble() < spice / odds;
    }

    /** {@code plain} mostly; one of {@code odd} with a probability this node's spice sets. */
    private String plainOr(String plain, String[] odd) {
        return random.nextDouble() < Math.min(0.9, spice * 0.3) ? pick(odd) : plain;
    }

    private String pick(String[] options) {
        return options[random.nextInt(options.length)];
    }

    /** A TOML basic string. */
    static String q(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
