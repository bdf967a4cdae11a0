package dev.crifresh.common.registry;

import dev.crifresh.common.registry.PullCredentials.HostLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.toml.TomlMapper;
import tools.jackson.dataformat.toml.TomlReadFeature;

/**
 * One {@code hosts.toml} as a containerd generation reads it ({@code parseHostsFile} and {@code parseHostConfig} in
 * {@code core/remotes/docker/config/hosts.go}; 1.x {@code remotes/docker/config/hosts.go}): the hosts it sends a
 * registry's pulls to and the certificate files every pull there reads, or {@link Ignored} where containerd surely
 * fails to decode it (it then logs the error and uses the host itself), or a doubt.
 */
final class HostsToml {
    private static final Pattern HOST_TABLE = Pattern.compile(
            "^\\s*\\[\\s*host\\s*\\.\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'|([A-Za-z0-9_-]+))\\s*\\]\\s*(?:#.*)?$");
    private static final Pattern TABLE_LINE = Pattern.compile("^[ \t]*\\[");
    private static final Pattern PLAIN_ASSIGNMENT = Pattern.compile(
            "^[ \t]*(?:([A-Za-z0-9_-]+)|\"([^\"\\\\]*)\"|'([^']*)')[ \t]*=");
    /** Dates stay dates: containerd's {@code string} fields refuse them, so they must not read as strings here. */
    private static final TomlMapper TOML = TomlMapper.builder().enable(TomlReadFeature.PARSE_JAVA_TIME).build();
    /** The fields of containerd's {@code hostFileConfig}, each {@code [host."…"]} table's. */
    private static final Set<String> HOST_FIELDS = Set.of("capabilities", "ca", "client", "skip_verify", "header",
            "override_path", "dial_timeout");
    /** The top level's: {@code hostFileConfig} embedded, {@code server} and {@code host}. */
    private static final Set<String> ROOT_FIELDS;

    static {
        Set<String> root = new TreeSet<>(HOST_FIELDS);
        root.add("server");
        root.add("host");
        ROOT_FIELDS = Set.copyOf(root);
    }

    sealed interface Reading {
    }

    /**
     * @param pulls        the hosts a pull goes to, in containerd's order
     * @param certificates every {@code ca} and {@code client} file the file names (each entry's, whatever its
     *                     capabilities: containerd reads them all when it sets up the pull's hosts)
     */
    record Hosts(List<String> pulls, List<Certificate> certificates) implements Reading {
        Hosts {
            pulls = List.copyOf(pulls);
            certificates = List.copyOf(certificates);
        }
    }

    /** containerd does not use the file: it logs why and pulls from the host itself ({@code loadCertFiles}). */
    record Ignored(String why) implements Reading {
    }

    /**
     * @param entry {@code server} for the top level, else the {@code [host."…"]} name
     * @param key   {@code ca} or {@code client}
     * @param path  the node path containerd reads: as written when absolute, else joined to the host directory and
     *              cleaned ({@code makeAbsPath}, Go's {@code filepath.Join})
     */
    record Certificate(String entry, String key, String path) {
    }

    private HostsToml() {
    }

    /**
     * @param where the file's node path, for messages
     * @param dir   the host directory as containerd names it (its root joined with the directory name): relative
     *              {@code ca} and {@code client} paths start there
     */
    static Reading read(String where, String dir, String text, String defaultHost, HostLayout layout) throws PullDoubt {
        JsonNode root;
        try {
            root = TOML.readTree(text);
        } catch (JacksonException e) {
            if ("Duplicate key".equals(e.getOriginalMessage()) && repeatsAKey(text)) {
                return new Ignored("it assigns one key twice in one table, which go-toml refuses");
            }
            throw new PullDoubt(where + " cannot be parsed (" + CriRegistryConfig.describe(e) + "): containerd then"
                    + " ignores it, and the agent does not guess which way");
        } catch (RuntimeException e) {
            throw new PullDoubt(where + " cannot be parsed: containerd then ignores it, and the agent does not guess"
                    + " which way");
        }
        if (root == null || !root.isObject()) {
            throw new PullDoubt(where + " is not a TOML table");
        }
        keyCase(where, root, ROOT_FIELDS, "the top level");
        List<String> ordered = hostTablesInOrder(text);
        JsonNode hostTable = root.get("host");
        if (layout == HostLayout.ONE && (hostTable == null || hostTable.isMissingNode())) {
            return new Ignored("it has no [host] table");
        }
        if (!declaredHosts(where, hostTable).equals(new TreeSet<>(ordered))) {
            throw new PullDoubt(where + " declares hosts other than as [host.\"…\"] tables: containerd orders only"
                    + " those");
        }
        List<String> hosts = new ArrayList<>();
        List<Certificate> certificates = new ArrayList<>();
        for (String name : ordered) {
            JsonNode entry = hostTable.get(name);
            if (!entry.isObject()) {
                throw new PullDoubt(where + ": host " + GoUrls.shown(name) + " is not a table");
            }
            keyCase(where, entry, HOST_FIELDS, "host " + GoUrls.shown(name));
            String h = GoUrls.serverHost(where, name);
            if (h.isEmpty()) {
                throw new PullDoubt(where + ": host " + GoUrls.shown(name) + " names no host");
            }
            Capabilities caps = capabilities(where, entry, layout);
            if (caps.ignored() != null) {
                return new Ignored(caps.ignored());
            }
            certificates.addAll(certificates(where, dir, name, entry));
            if (caps.pulls()) {
                hosts.add(h);
            }
        }
        String serverHost = serverHost(where, root.get("server"), defaultHost);
        Capabilities caps = capabilities(where, root, layout);
        if (caps.ignored() != null) {
            return new Ignored(caps.ignored());
        }
        certificates.addAll(certificates(where, dir, "server", root));
        if (caps.pulls()) {
            hosts.add(serverHost);
        }
        return new Hosts(hosts, certificates);
    }

    /** The hosts of the {@code [host."…"]} table headers, in the file's order (containerd tries them in it). */
    private static List<String> hostTablesInOrder(String text) {
        List<String> ordered = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            Matcher m = HOST_TABLE.matcher(line);
            if (m.matches()) {
                String name = m.group(1) != null ? unescape(m.group(1)) : m.group(2) != null ? m.group(2) : m.group(3);
                if (!ordered.contains(name)) {
                    ordered.add(name);
                }
            }
        }
        return ordered;
    }

    /** The keys of the {@code host} table, however they were written. */
    private static Set<String> declaredHosts(String where, JsonNode hostTable) throws PullDoubt {
        Set<String> declared = new TreeSet<>();
        if (hostTable != null && !hostTable.isMissingNode()) {
            if (!hostTable.isObject()) {
                throw new PullDoubt(where + ": host is not a table");
            }
            hostTable.properties().forEach(e -> declared.add(e.getKey()));
        }
        return declared;
    }

    /** The host of the {@code server} key, or {@code defaultHost} where it names none. */
    private static String serverHost(String where, JsonNode server, String defaultHost) throws PullDoubt {
        if (server == null || server.isMissingNode()) {
            return defaultHost;
        }
        if (!server.isString()) {
            throw new PullDoubt(where + ": server is not a string");
        }
        if (server.stringValue().isEmpty()) {
            return defaultHost;
        }
        String serverHost = GoUrls.serverHost(where, server.stringValue());
        return serverHost.isEmpty() ? defaultHost : serverHost;
    }

    /**
     * Whether one plain {@code key = …} line repeats a key of an earlier line under the same table header: go-toml v1
     * ("The following key was defined twice", {@code parser.go}) and v2 ("key … is already defined",
     * {@code internal/tracker/seen.go}) both refuse that file, so containerd ignores it. Only the plainest form
     * counts (no multi-line strings anywhere, no dotted keys): anything else a parser refuses stays a doubt.
     */
    static boolean repeatsAKey(String text) {
        if (text.contains("\"\"\"") || text.contains("'''")) {
            return false;
        }
        int section = 0;
        Set<String> seen = new java.util.HashSet<>();
        for (String line : text.split("\n", -1)) {
            if (TABLE_LINE.matcher(line).find()) {
                section++;
                continue;
            }
            Matcher m = PLAIN_ASSIGNMENT.matcher(line);
            if (m.find()) {
                String key = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
                if (!seen.add(section + "\u0000" + key)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A key that differs only in case from one of containerd's fields is a doubt: go-toml v2 (2.x) matches a field
     * by its exact name, then by the key's lower case ({@code structFieldPath}); go-toml v1 (1.x) tries the name,
     * its lower and its upper case ({@code keysToTry}). Which spelling wins where both are there, and whether a
     * generation reads it at all, the agent does not guess.
     */
    private static void keyCase(String where, JsonNode table, Set<String> fields, String level) throws PullDoubt {
        for (String key : table.propertyNames()) {
            if (fields.contains(key)) {
                continue;
            }
            String lower = goLower(key);
            for (String field : fields) {
                if (lower.equals(field) || key.equalsIgnoreCase(field)) {
                    throw new PullDoubt(where + ": " + level + " spells " + KeyPath.root(key) + ", which containerd"
                            + " may read as " + field + " (go-toml matches a field's name regardless of case):"
                            + " the agent does not guess which spelling containerd takes");
                }
            }
        }
    }

    /** Go's {@code strings.ToLower}: each code point's simple lower case. */
    private static String goLower(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> out.appendCodePoint(Character.toLowerCase(c)));
        return out.toString();
    }

    /** @param ignored why containerd refuses the file, or null */
    private record Capabilities(boolean pulls, String ignored) {
    }

    /**
     * Whether a pull goes to the entry: its {@code capabilities} include both {@code pull} and {@code resolve} (all
     * of them when absent or empty). containerd resolves a tag only at hosts with both and fetches from hosts with
     * {@code pull} ({@code core/remotes/docker/resolver.go}, {@code filterHosts}, {@code HostCapabilities.Has}; from
     * source only), so a host with one of the two sends some requests of a pull elsewhere: a doubt. A capability
     * containerd does not know makes {@code parseHostConfig} fail, and containerd ignores the whole file;
     * {@code referrers} is known from 2.2 on.
     */
    private static Capabilities capabilities(String where, JsonNode entry, HostLayout layout) throws PullDoubt {
        JsonNode caps = entry.get("capabilities");
        if (caps == null || caps.isMissingNode() || caps.isArray() && caps.isEmpty()) {
            return new Capabilities(true, null);
        }
        if (!caps.isArray()) {
            throw new PullDoubt(where + ": capabilities is not an array");
        }
        boolean pull = false;
        boolean resolve = false;
        for (JsonNode c : caps) {
            if (!c.isString()) {
                throw new PullDoubt(where + ": a capability that is not a string");
            }
            String cap = c.stringValue().toLowerCase(Locale.ROOT);
            if (!cap.equals(goLower(c.stringValue()))) {
                throw new PullDoubt(where + ": a capability spelled with letters whose lower case Go and Java differ on");
            }
            switch (cap) {
                case "pull" -> pull = true;
                case "resolve" -> resolve = true;
                case "push" -> { }
                case "referrers" -> {
                    if (!layout.knowsReferrers()) {
                        return new Capabilities(false, "it names the referrers capability, which containerd "
                                + layout.label() + " does not know");
                    }
                }
                default -> {
                    return new Capabilities(false, "it names a capability containerd does not know");
                }
            }
        }
        if (pull != resolve) {
            throw new PullDoubt(where + ": a host with " + (pull ? "pull" : "resolve") + " but not "
                    + (pull ? "resolve" : "pull") + ": a pull's tag lookup and its fetches would go to different"
                    + " hosts");
        }
        return new Capabilities(pull, null);
    }

    /**
     * The files an entry's {@code ca} (a string or an array of strings) and {@code client} (a string, or an array of
     * strings and two-string arrays) name, as {@code parseHostConfig} makes them absolute. containerd reads each one
     * at every pull ({@code updateTLSConfigFromHost}); any other shape makes it refuse the file, which the agent
     * does not classify (a doubt).
     */
    private static List<Certificate> certificates(String where, String dir, String entryName, JsonNode entry)
            throws PullDoubt {
        List<Certificate> out = new ArrayList<>();
        JsonNode ca = entry.get("ca");
        if (ca != null && !ca.isMissingNode()) {
            if (ca.isString()) {
                out.add(new Certificate(entryName, "ca", absolute(ca.stringValue(), dir)));
            } else if (ca.isArray()) {
                for (JsonNode p : ca) {
                    if (!p.isString()) {
                        throw new PullDoubt(where + ": ca holds something other than file names");
                    }
                    out.add(new Certificate(entryName, "ca", absolute(p.stringValue(), dir)));
                }
            } else {
                throw new PullDoubt(where + ": ca is neither a file name nor a list of them");
            }
        }
        JsonNode client = entry.get("client");
        if (client != null && !client.isMissingNode()) {
            if (client.isString()) {
                out.add(new Certificate(entryName, "client", absolute(client.stringValue(), dir)));
            } else if (client.isArray()) {
                for (JsonNode c : client) {
                    if (c.isString()) {
                        out.add(new Certificate(entryName, "client", absolute(c.stringValue(), dir)));
                    } else if (c.isArray() && c.size() == 2 && c.get(0).isString() && c.get(1).isString()) {
                        // each of a pair is made absolute, an empty one too (it then names the directory)
                        out.add(new Certificate(entryName, "client", absolute(c.get(0).stringValue(), dir)));
                        out.add(new Certificate(entryName, "client", absolute(c.get(1).stringValue(), dir)));
                    } else {
                        throw new PullDoubt(where + ": client holds something other than file names and pairs of them");
                    }
                }
            } else {
                throw new PullDoubt(where + ": client is neither a file name nor a list of them");
            }
        }
        return out;
    }

    /**
     * containerd's {@code makeAbsPath}: an absolute path as written (the kernel resolves its {@code ..} after
     * symlinks), else joined to the directory and cleaned lexically ({@code filepath.Join}).
     */
    private static String absolute(String path, String dir) {
        return path.startsWith("/") ? path : GoPaths.clean(dir + "/" + path);
    }

    private static String unescape(String quoted) {
        return quoted.replace("\\\"", "\"").replace("\\\\", "\\");
    }
}
