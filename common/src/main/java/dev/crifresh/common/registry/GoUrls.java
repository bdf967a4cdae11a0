package dev.crifresh.common.registry;

/**
 * What containerd makes of a registry URL, as Go's {@code net/url} parses it: the host a {@code registry.auths} key
 * and a {@code hosts.toml} {@code server} or {@code [host."…"]} name stand for. Never quotes a credential.
 */
final class GoUrls {
    private GoUrls() {
    }

    /**
     * The {@code registry.configs} key a {@code registry.auths} key becomes (containerd's config validation):
     * Go's {@code url.Parse}; with a scheme the URL's host, without one the key as written; a key Go cannot
     * parse ({@code host:port} without a scheme) stops the CRI image service from loading.
     */
    static String authsKey(String key) throws PullDoubt {
        int i = 0;
        for (; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isLetter(c) && c < 128) {
                continue;
            }
            if ((c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') && i > 0) {
                continue;
            }
            break;
        }
        boolean hasScheme = i > 0 && i < key.length() && key.charAt(i) == ':';
        if (!hasScheme) {
            if (key.startsWith(":")) {
                throw new PullDoubt("registry.auths " + shown(key) + " is not a URL: containerd refuses the config");
            }
            String segment = key.contains("/") ? key.substring(0, key.indexOf('/')) : key;
            if (!key.startsWith("/") && segment.contains(":")) {
                throw new PullDoubt("registry.auths " + shown(key) + " is not a URL containerd can parse (host:port"
                        + " needs a scheme there): containerd's CRI image service does not load");
            }
            return key;
        }
        return parsed("registry.auths " + shown(key), host(key.substring(i + 1)), key);
    }

    /** containerd's {@code parseHostConfig}: {@code https://} prefixed unless it starts with "http", then the URL's host. */
    static String serverHost(String where, String server) throws PullDoubt {
        String url = server.startsWith("http") ? server : "https://" + server;
        int colon = url.indexOf(':');
        String scheme = url.substring(0, colon < 0 ? 0 : colon);
        if (colon < 0 || !scheme.matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            throw new PullDoubt(where + ": " + shown(server) + " is not a URL containerd can parse");
        }
        return parsed(where + ": " + shown(server), host(url.substring(colon + 1)), server);
    }

    /**
     * The host, unless Go's {@code url.Parse} may refuse the URL: a port that is not digits, or a {@code %} escape
     * (the agent does not decode escapes); containerd then refuses the config or the file, so the agent does not
     * guess.
     */
    private static String parsed(String what, String host, String url) throws PullDoubt {
        int colon = host.lastIndexOf(':');
        boolean badPort = colon > host.lastIndexOf(']')
                && !host.substring(colon + 1).chars().allMatch(c -> c >= '0' && c <= '9');
        if (badPort || url.indexOf('%') >= 0) {
            throw new PullDoubt(what + " is not a URL the agent can tell containerd parses (a port that is not a"
                    + " number, or a % escape)");
        }
        return host;
    }

    /** The host of what follows a URL's scheme and colon: empty unless it starts with {@code //} (an opaque URL). */
    private static String host(String afterScheme) {
        if (!afterScheme.startsWith("//")) {
            return "";
        }
        String authority = afterScheme.substring(2);
        int end = firstOf(authority, "/?#");
        authority = end < 0 ? authority : authority.substring(0, end);
        int at = authority.lastIndexOf('@');
        return at < 0 ? authority : authority.substring(at + 1);
    }

    private static int firstOf(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /** A key for a message: quoted, with any {@code user:pass@} part left out. */
    static String shown(String key) {
        return "'" + (key.indexOf('@') >= 0 ? RegistryHosts.normalise(key) : key) + "'";
    }
}
