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

/** One {@code hosts.toml}: the hosts it sends a registry's pulls to, as containerd reads it, or a doubt. */
final class HostsToml {
    private static final Pattern HOST_TABLE = Pattern.compile(
            "^\\s*\\[\\s*host\\s*\\.\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'|([A-Za-z0-9_-]+))\\s*\\]\\s*(?:#.*)?$");

    private HostsToml() {
    }

    /**
     * The hosts a {@code hosts.toml} sends pulls (and resolves) to, in containerd's order: each
     * {@code [host."…"]} table in file order, then {@code server} (the default host when absent). containerd
     * falls back to the default host when it cannot decode the file; the agent does not guess at a parser's
     * corner cases, so anything it cannot read plainly is a doubt. Null when the generation ignores the file
     * (containerd 1.x, no {@code host} table).
     */
    static List<String> hosts(String where, String text, String defaultHost, HostLayout layout) throws PullDoubt {
        JsonNode root;
        try {
            root = CriRegistryConfig.TOML.readTree(text);
        } catch (JacksonException e) {
            throw new PullDoubt(where + " cannot be parsed (" + CriRegistryConfig.describe(e) + "): containerd then"
                    + " ignores it, and the agent does not guess which way");
        } catch (RuntimeException e) {
            throw new PullDoubt(where + " cannot be parsed: containerd then ignores it, and the agent does not guess"
                    + " which way");
        }
        if (root == null || !root.isObject()) {
            throw new PullDoubt(where + " is not a TOML table");
        }
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
        JsonNode hostTable = root.get("host");
        if (layout == HostLayout.ONE && (hostTable == null || hostTable.isMissingNode())) {
            return null;
        }
        Set<String> declared = new TreeSet<>();
        if (hostTable != null && !hostTable.isMissingNode()) {
            if (!hostTable.isObject()) {
                throw new PullDoubt(where + ": host is not a table");
            }
            hostTable.properties().forEach(e -> declared.add(e.getKey()));
        }
        if (!declared.equals(new TreeSet<>(ordered))) {
            throw new PullDoubt(where + " declares hosts other than as [host.\"…\"] tables: containerd orders only"
                    + " those");
        }
        List<String> hosts = new ArrayList<>();
        for (String name : ordered) {
            JsonNode entry = hostTable.get(name);
            if (!entry.isObject()) {
                throw new PullDoubt(where + ": host " + GoUrls.shown(name) + " is not a table");
            }
            String h = GoUrls.serverHost(where, name);
            if (h.isEmpty()) {
                throw new PullDoubt(where + ": host " + GoUrls.shown(name) + " names no host");
            }
            if (pulls(where, entry)) {
                hosts.add(h);
            }
        }
        JsonNode server = root.get("server");
        String serverHost = defaultHost;
        if (server != null && !server.isMissingNode()) {
            if (!server.isString()) {
                throw new PullDoubt(where + ": server is not a string");
            }
            if (!server.stringValue().isEmpty()) {
                serverHost = GoUrls.serverHost(where, server.stringValue());
                if (serverHost.isEmpty()) {
                    serverHost = defaultHost;
                }
            }
        }
        if (pulls(where, root)) {
            hosts.add(serverHost);
        }
        return hosts;
    }

    /**
     * Whether a pull goes to the entry: its {@code capabilities} include both {@code pull} and {@code resolve} (all
     * three when absent). containerd resolves a tag only at hosts with both and fetches from hosts with {@code pull}
     * ({@code core/remotes/docker/resolver.go}, {@code filterHosts}, {@code HostCapabilities.Has}; from source only),
     * so a host with one of the two sends some requests of a pull elsewhere: a doubt.
     */
    private static boolean pulls(String where, JsonNode entry) throws PullDoubt {
        JsonNode caps = entry.get("capabilities");
        if (caps == null || caps.isMissingNode() || caps.isArray() && caps.isEmpty()) {
            return true;
        }
        if (!caps.isArray()) {
            throw new PullDoubt(where + ": capabilities is not an array");
        }
        boolean pull = false;
        boolean resolve = false;
        for (JsonNode c : caps) {
            String cap = c.isString() ? c.stringValue().toLowerCase(Locale.ROOT) : "";
            switch (cap) {
                case "pull" -> pull = true;
                case "resolve" -> resolve = true;
                case "push" -> { }
                default -> throw new PullDoubt(where + ": a capability other than pull, resolve and push");
            }
        }
        if (pull != resolve) {
            throw new PullDoubt(where + ": a host with " + (pull ? "pull" : "resolve") + " but not "
                    + (pull ? "resolve" : "pull") + ": a pull's tag lookup and its fetches would go to different"
                    + " hosts");
        }
        return pull;
    }

    private static String unescape(String quoted) {
        return quoted.replace("\\\"", "\"").replace("\\\\", "\\");
    }

}
