package dev.crifresh.common.registry;

import dev.crifresh.common.registry.ContainerdReading.RegistryTable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The credential containerd sends for a pull from each registry host, following its CRI image service
 * (docs/design.md, "Which credential a pull sends", cites the sources):
 * <ol>
 *   <li>the deprecated {@code registry.auths} are copied into {@code registry.configs} at load, each under its
 *       URL's host when the key has a scheme, else under the key as written, over the {@code auth} there;</li>
 *   <li>a pull from host H goes to the hosts {@code hosts.toml} names — the first of
 *       {@code <config_path>/<H with :port as _port_>}, {@code <config_path>/<H>}, {@code <config_path>/_default}
 *       that exists, re-read at every pull: its {@code [host."…"]} entries in file order, then {@code server}
 *       (H itself when absent; {@code registry-1.docker.io} for {@code docker.io}) — or to H alone;</li>
 *   <li>the credential sent to each of those hosts is {@code registry.configs[host:port]}: the exact key, no
 *       scheme, no normalisation.</li>
 * </ol>
 * The credential a pull from H sends is the one sent to H's own default host when the pull reaches it (a
 * mirror before it may answer first, but the registry itself gets that one); when {@code hosts.toml} sends the
 * pull only elsewhere, it is the one all those hosts get — unknown if they get different ones.
 * <p>A credential the files spell for a host that no pull from that host sends is a {@link Problem}: the node's
 * containerd holds exactly what the files say, so a reboot cannot fix it; the operator must.
 */
public final class PullCredentials {
    /**
     * How a containerd generation decodes {@code hosts.toml}. containerd 1.6 and 1.7 (real binaries; go-toml v1's
     * {@code getSortedHosts}) refuse a file without a {@code host} table ("failed to decode hosts.toml: invalid
     * `host` tree") and fall back to the directory's certificate files, so such a file changes nothing: the pull
     * goes to the host itself. containerd 2.x (real 2.1, 2.2, 2.3) reads it: {@code server} alone is enough.
     * Both look in {@code <host>_<port>_}, {@code <host>}, {@code _default}, in that order.
     */
    public enum HostLayout { ONE, TWO }

    /** Kinds of credential no pull sends. */
    public enum Kind {
        /** A {@code configs} (or {@code auths}) key that no pull looks up: a scheme, a path, {@code docker.io}. */
        KEY_NEVER_MATCHED,
        /** A deprecated {@code registry.auths} entry replaced a {@code registry.configs} credential. */
        AUTHS_OVERRIDE_CONFIGS,
        /** {@code hosts.toml} sends the host's pulls to other hosts, which get another credential or none. */
        HOSTS_TOML_REDIRECTS,
        /**
         * containerd refuses the files, or its CRI images plugin fails to start on them (an invalid value,
         * {@code mirrors} beside {@code config_path}): no pull sends anything, and a reboot loads the same files.
         */
        CONFIG_REFUSED,
        /** A {@code hosts.toml} names a {@code ca} or {@code client} file that does not exist: every pull there fails. */
        HOSTS_CERTIFICATE_MISSING
    }

    /** @param detail one sentence naming keys, hosts and paths; never a credential */
    public record Problem(Kind kind, String host, String detail) {
        public Problem {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /** What is at one path under {@code config_path}, as containerd's {@code os.Stat} and read would find it. */
    public sealed interface HostDir {
    }

    /** Nothing there: containerd tries the next candidate. */
    public record Missing() implements HostDir {
    }

    /** A directory; {@code hostsToml} is its {@code hosts.toml} text, null when it has none (or it is empty). */
    public record Found(String hostsToml) implements HostDir {
    }

    /** Something containerd would fail on, or the agent could not read. */
    public record Unreadable(String why) implements HostDir {
    }

    /** The agent's view of the {@code config_path} tree (files under the host root; a map in tests). */
    public interface HostsFiles {
        /** @param nodePath an absolute node path: {@code config_path} joined with one directory name */
        HostDir at(String nodePath);

        /**
         * The names of the directories in {@code nodePath}; empty when it does not exist.
         *
         * @throws UncheckedIOException when it exists but cannot be listed (a doubt: the hosts only its directories
         *                              name would be missed)
         */
        List<String> directories(String nodePath);
    }

    public sealed interface Result {
    }

    /**
     * @param sent       per normalised host, the credential a pull from it sends (hosts that send none are absent)
     * @param problems   credentials the files spell that no pull sends, one per key, sorted by host
     * @param consulted  the node directories read under {@code config_path} (the root first): what to watch
     * @param loaded     per normalised host, the credential containerd's {@code registry.configs} holds once
     *                   {@code registry.auths} is copied in (the key spelled as the host wins): what containerd
     *                   1.x's CRI status reports
     */
    public record Resolved(Map<String, RegistryAuth> sent, List<Problem> problems, List<String> consulted,
                           Map<String, RegistryAuth> loaded) implements Result {
        public Resolved {
            loaded = Map.copyOf(loaded);
            sent = Map.copyOf(sent);
            problems = List.copyOf(problems);
            consulted = List.copyOf(consulted);
        }
    }

    /** Which credential a pull sends cannot be told; never quotes a credential. */
    public record Failed(String message, List<String> consulted) implements Result {
        public Failed {
            consulted = List.copyOf(consulted);
        }
    }

    private static final String DOCKER_IO = "docker.io";
    private static final String DOCKER_IO_HOST = "registry-1.docker.io";
    private static final Pattern PORT_DIRECTORY = Pattern.compile("^(.+)_([0-9]+)_$");

    private final RegistryTable table;
    private final HostsFiles files;
    private final Map<String, String> effectiveSource = new TreeMap<>();
    private final Map<String, RegistryAuth> effective = new TreeMap<>();
    private final Set<String> consulted = new LinkedHashSet<>();
    private final Map<String, Chain> chains = new TreeMap<>();

    /** The hosts a pull from one host goes to, and the file that said so (null: containerd's default). */
    private record Chain(String defaultHost, List<String> hosts, String hostsFile) {
        boolean reachesDefault() {
            return hosts.contains(defaultHost);
        }
    }

    private final HostLayout layout;

    private PullCredentials(RegistryTable table, HostsFiles files, HostLayout layout) {
        this.table = table;
        this.files = files;
        this.layout = layout;
    }

    /** As containerd 2.x reads the {@code config_path} tree. */
    public static Result resolve(RegistryTable table, HostsFiles files) {
        return resolve(table, files, List.of(HostLayout.TWO));
    }

    /**
     * @param layouts the generations that may be running: when they send different credentials (a
     *                {@code hosts.toml} without {@code [host]} tables, which 1.x ignores and 2.x reads), which one a
     *                pull sends is a doubt
     */
    public static Result resolve(RegistryTable table, HostsFiles files, List<HostLayout> layouts) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(files, "files");
        if (layouts.isEmpty()) {
            throw new IllegalArgumentException("no layout");
        }
        Result first = null;
        List<String> consulted = new ArrayList<>();
        for (HostLayout layout : layouts) {
            PullCredentials p = new PullCredentials(table, files, layout);
            Result r;
            try {
                r = p.resolve();
            } catch (PullDoubt d) {
                r = new Failed(d.getMessage(), new ArrayList<>(p.consulted));
            }
            p.consulted.stream().filter(c -> !consulted.contains(c)).forEach(consulted::add);
            if (first == null) {
                first = r;
            } else if (!sameAnswer(first, r)) {
                return new Failed("containerd 1.x ignores a hosts.toml without [host] tables, 2.x reads it: they"
                        + " would send different credentials here, and which containerd runs cannot be told", consulted);
            }
        }
        return first instanceof Resolved r ? new Resolved(r.sent(), r.problems(), consulted, r.loaded())
                : new Failed(((Failed) first).message(), consulted);
    }

    private static boolean sameAnswer(Result a, Result b) {
        if (a instanceof Resolved x && b instanceof Resolved y) {
            return x.sent().equals(y.sent()) && x.problems().equals(y.problems());
        }
        return a instanceof Failed && b instanceof Failed;
    }

    private Result resolve() throws PullDoubt {
        effective.putAll(table.configs());
        Map<String, String> authsByKey = new TreeMap<>();
        for (Map.Entry<String, RegistryAuth> e : table.auths().entrySet()) {
            String key = GoUrls.authsKey(e.getKey());
            String earlier = authsByKey.putIfAbsent(key, e.getKey());
            if (earlier != null && !same(table.auths().get(earlier), e.getValue())) {
                throw new PullDoubt("registry.auths " + GoUrls.shown(earlier) + " and " + GoUrls.shown(e.getKey())
                        + " both become registry.configs " + GoUrls.shown(key) + " with different credentials;"
                        + " containerd copies them in random order");
            }
            effective.put(key, e.getValue());
            effectiveSource.put(key, e.getKey());
        }
        String root = configRoot();
        Set<String> candidates = new TreeSet<>();
        table.configs().keySet().forEach(k -> candidates.add(RegistryHosts.normalise(k)));
        table.auths().keySet().forEach(k -> candidates.add(RegistryHosts.normalise(k)));
        if (root != null) {
            consulted.add(root);
            for (String dir : listed(root)) {
                String host = hostOfDirectory(dir);
                if (host != null) {
                    candidates.add(RegistryHosts.normalise(host));
                }
            }
        }
        candidates.remove("");
        Map<String, RegistryAuth> sent = new TreeMap<>();
        for (String host : candidates) {
            RegistryAuth auth = sent(host, root);
            if (auth != null) {
                sent.put(host, auth);
            }
        }
        List<Problem> problems = new ArrayList<>();
        for (Map.Entry<String, RegistryAuth> e : table.configs().entrySet()) {
            problem(e.getKey(), e.getKey(), e.getValue(), false, sent, root).ifPresent(problems::add);
        }
        for (Map.Entry<String, RegistryAuth> e : table.auths().entrySet()) {
            problem(e.getKey(), GoUrls.authsKey(e.getKey()), e.getValue(), true, sent, root).ifPresent(problems::add);
        }
        problems.sort(Comparator.comparing(Problem::host).thenComparing(Problem::detail));
        Map<String, RegistryAuth> loaded = new TreeMap<>(ContainerdConfigFile.byNormalisedHost(effective));
        loaded.remove("");
        return new Resolved(sent, problems, new ArrayList<>(consulted), loaded);
    }

    private List<String> listed(String root) throws PullDoubt {
        try {
            return files.directories(root);
        } catch (UncheckedIOException e) {
            throw new PullDoubt("registry.config_path cannot be listed (" + e.getCause().getMessage() + ")");
        }
    }

    /** The credential a pull from normalised {@code host} sends, or null for none. */
    private RegistryAuth sent(String host, String root) throws PullDoubt {
        Chain chain = chain(host, root);
        if (chain.reachesDefault()) {
            return effective.get(chain.defaultHost());
        }
        Set<RegistryAuth> distinct = new LinkedHashSet<>();
        boolean none = false;
        for (String h : chain.hosts()) {
            RegistryAuth a = effective.get(h);
            if (a == null) {
                none = true;
            } else if (distinct.stream().noneMatch(d -> same(d, a))) {
                distinct.add(a);
            }
        }
        if (distinct.size() + (none ? 1 : 0) > 1) {
            throw new PullDoubt(chain.hostsFile() + " sends pulls from " + host + " to "
                    + String.join(", ", chain.hosts())
                    + ", which get different credentials: which one a pull sends depends on which host answers");
        }
        return distinct.isEmpty() ? null : distinct.iterator().next();
    }

    private Optional<Problem> problem(String rawKey, String storedKey, RegistryAuth written, boolean auths,
                                                Map<String, RegistryAuth> sent, String root) throws PullDoubt {
        String host = RegistryHosts.normalise(rawKey);
        RegistryAuth pulled = sent.get(host);
        if (host.isEmpty() || same(written, pulled)) {
            return Optional.empty();
        }
        String what = (auths ? "registry.auths " : "registry.configs ") + GoUrls.shown(rawKey);
        String gets = pulled == null ? "no credential" : "another credential";
        Chain chain = chain(host, root);
        if (!auths && effectiveSource.containsKey(rawKey) && !same(effective.get(rawKey), written)) {
            return Optional.of(new Problem(Kind.AUTHS_OVERRIDE_CONFIGS, host, "the deprecated registry.auths "
                    + GoUrls.shown(effectiveSource.get(rawKey)) + " replaces the credential of " + what
                    + " when containerd loads it: pulls from " + host + " send that one"));
        }
        if (!chain.reachesDefault() && storedKey.equals(chain.defaultHost())) {
            return Optional.of(new Problem(Kind.HOSTS_TOML_REDIRECTS, host, chain.hostsFile()
                    + " sends pulls from " + host + " to " + String.join(", ", chain.hosts()) + " (not " + host
                    + "), which get " + gets + ": the credential of " + what + " is never sent"));
        }
        String lookedUp = chain.reachesDefault() ? "'" + chain.defaultHost() + "'"
                : String.join(", ", chain.hosts().stream().map(h -> "'" + h + "'").toList());
        return Optional.of(new Problem(Kind.KEY_NEVER_MATCHED, host, what
                + (auths && !storedKey.equals(rawKey) ? " is stored as registry.configs '" + storedKey + "', but" : "")
                + " is never looked up: containerd looks a credential up by the exact host[:port] a pull goes to, and"
                + " a pull from " + host + " looks up " + lookedUp + ", which gets " + gets));
    }

    private String configRoot() throws PullDoubt {
        String path = table.configPath();
        if (path == null || path.isEmpty()) {
            return null;
        }
        if (path.contains(":")) {
            throw new PullDoubt("registry.config_path lists several directories; containerd's CRI pull through the"
                    + " transfer service (2.x) reads it as one directory, its local pull (1.x) as a list");
        }
        if (!path.startsWith("/")) {
            throw new PullDoubt("registry.config_path is relative: it resolves against containerd's working directory");
        }
        String clean = path.replaceAll("/+", "/");
        return clean.length() > 1 && clean.endsWith("/") ? clean.substring(0, clean.length() - 1) : clean;
    }

    private Chain chain(String host, String root) throws PullDoubt {
        Chain known = chains.get(host);
        if (known != null) {
            return known;
        }
        String defaultHost = host.equals(DOCKER_IO) ? DOCKER_IO_HOST : host;
        Chain chain = new Chain(defaultHost, List.of(defaultHost), null);
        if (root != null) {
            for (String dir : hostPaths(host)) {
                String path = root.equals("/") ? "/" + dir : root + "/" + dir;
                consulted.add(path);
                HostDir found = files.at(path);
                if (found instanceof Missing) {
                    continue;
                }
                if (found instanceof Unreadable u) {
                    throw new PullDoubt(path + ": " + u.why());
                }
                String text = ((Found) found).hostsToml();
                if (text != null && !text.isEmpty()) {
                    List<String> hosts = HostsToml.hosts(path + "/hosts.toml", text, defaultHost, layout);
                    chain = hosts == null ? chain : new Chain(defaultHost, hosts, path + "/hosts.toml");
                }
                break;
            }
        }
        chains.put(host, chain);
        return chain;
    }

    /** containerd's {@code hostPaths}: {@code host_port_} (when there is a port), then {@code host}, {@code _default}. */
    static List<String> hostPaths(String host) {
        List<String> out = new ArrayList<>();
        int colon = host.lastIndexOf(':');
        if (colon > 0) {
            out.add(host.substring(0, colon) + "_" + host.substring(colon + 1) + "_");
        }
        out.add(host);
        out.add("_default");
        return out;
    }

    private String hostOfDirectory(String dir) {
        if (dir.equals("_default") || dir.startsWith(".")) {
            return null;
        }
        Matcher m = PORT_DIRECTORY.matcher(dir);
        return m.matches() ? m.group(1) + ":" + m.group(2) : dir;
    }

    /** Credentials compared by what is sent (the host they are filed under does not count). */
    static boolean same(RegistryAuth a, RegistryAuth b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.username().equals(b.username()) && a.password().equals(b.password())
                && a.identityToken().equals(b.identityToken());
    }
}
