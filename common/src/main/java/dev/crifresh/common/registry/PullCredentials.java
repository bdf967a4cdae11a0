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
@SuppressWarnings("checkstyle:filelength") // one walk of containerd's pull path; its steps share the reading's state
public final class PullCredentials {
    /**
     * How a containerd generation finds and decodes {@code hosts.toml} (docs/design.md, "Which credential a pull
     * sends", cites the sources). All look in {@code <host>_<port>_}, {@code <host>}, {@code _default} under each
     * directory of {@code config_path} in turn.
     */
    public enum HostLayout {
        /**
         * containerd 1.6 and 1.7: go-toml v1's {@code getSortedHosts} refuses a file without a {@code host} table
         * ("failed to decode hosts.toml: invalid `host` tree"), so such a file changes nothing (real binaries); no
         * {@code referrers} capability; no default directories.
         */
        ONE("1.x", false, false),
        /** containerd 2.0 (from source) and 2.1 (real): {@code server} alone is read; no {@code referrers}; no default. */
        TWO_ONE("2.0 and 2.1", false, false),
        /**
         * containerd 2.2 and 2.3 (real): also {@code referrers}; with {@code config_path} and {@code registry.mirrors}
         * both empty, {@code /etc/containerd/certs.d:/etc/docker/certs.d} ({@code plugins/cri/images/plugin.go}).
         */
        TWO_TWO("2.2 and 2.3", true, true);

        private final String label;
        private final boolean defaultDirectories;
        private final boolean referrers;

        HostLayout(String label, boolean defaultDirectories, boolean referrers) {
            this.label = label;
            this.defaultDirectories = defaultDirectories;
            this.referrers = referrers;
        }

        public String label() {
            return label;
        }

        boolean knowsReferrers() {
            return referrers;
        }

        /** Every containerd 2.x this agent knows. */
        public static final List<HostLayout> TWO = List.of(TWO_ONE, TWO_TWO);
        /** Every containerd this agent knows. */
        public static final List<HostLayout> ALL = List.of(ONE, TWO_ONE, TWO_TWO);
    }

    /** The directories containerd 2.2 and 2.3 read on Linux when {@code config_path} and the mirrors are empty. */
    public static final List<String> DEFAULT_DIRECTORIES = List.of("/etc/containerd/certs.d", "/etc/docker/certs.d");

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
    public record Unreadable(String why) implements HostDir, FileAt {
    }

    /** What is at a {@code ca} or {@code client} path, as containerd's {@code os.ReadFile} would find it. */
    public sealed interface FileAt {
    }

    /** A file containerd can read (symlinks followed). */
    public record RegularFile() implements FileAt {
    }

    /** containerd's read fails: nothing there (a dangling symlink too), or a directory; {@code why} says which. */
    public record NoFile(String why) implements FileAt {
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

        /** @param nodePath an absolute node path a {@code hosts.toml} names as a certificate file */
        FileAt file(String nodePath);
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

    /**
     * The hosts a pull from one host goes to, and the file that said so (null: containerd's default).
     *
     * @param certificateFailure why every pull from the host fails at its TLS setup, or null
     */
    private record Chain(String defaultHost, List<String> hosts, String hostsFile, String certificateFailure) {
        boolean reachesDefault() {
            return hosts.contains(defaultHost);
        }
    }

    /**
     * One way containerd may read the tree: a generation, and the directories it looks in.
     *
     * @param label how a message names it
     */
    private record Reading(HostLayout layout, List<String> roots, String label) {
    }

    private final Reading reading;
    /** The files this reading ignores, and why: what a doubt between readings names. */
    private final List<String> ignored = new ArrayList<>();

    private PullCredentials(RegistryTable table, HostsFiles files, Reading reading) {
        this.table = table;
        this.files = files;
        this.reading = reading;
    }

    /** As every containerd 2.x reads the {@code config_path} tree (a doubt where they differ). */
    public static Result resolve(RegistryTable table, HostsFiles files) {
        return resolve(table, files, HostLayout.TWO);
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
        List<Reading> readings = new ArrayList<>();
        for (HostLayout layout : layouts) {
            try {
                readings.addAll(readings(table.configPath(), layout));
            } catch (PullDoubt d) {
                return new Failed(d.getMessage(), List.of());
            }
        }
        List<String> consulted = new ArrayList<>();
        Failed failed = null;
        Resolved first = null;
        Reading firstReading = null;
        List<String> firstIgnored = List.of();
        String differs = null;
        for (Reading reading : readings) {
            PullCredentials p = new PullCredentials(table, files, reading);
            Result r;
            try {
                r = p.resolve();
            } catch (PullDoubt d) {
                r = new Failed(d.getMessage(), new ArrayList<>(p.consulted));
            }
            p.consulted.stream().filter(c -> !consulted.contains(c)).forEach(consulted::add);
            if (r instanceof Failed f) {
                failed = failed == null ? f : failed;
            } else if (first == null) {
                first = (Resolved) r;
                firstReading = reading;
                firstIgnored = p.ignored;
            } else if (differs == null) {
                differs = difference(firstReading, first, reading, (Resolved) r);
                if (differs != null) {
                    List<String> why = new ArrayList<>(firstIgnored);
                    p.ignored.stream().filter(w -> !why.contains(w)).forEach(why::add);
                    differs += why.isEmpty() ? "" : " (" + String.join("; ", why) + ")";
                }
            }
        }
        if (failed != null) {
            return new Failed(failed.message(), consulted);
        }
        if (differs != null) {
            return new Failed(differs, consulted);
        }
        return new Resolved(first.sent(), first.problems(), consulted, first.loaded());
    }

    /**
     * The directories each generation reads: {@code config_path} split as a list ({@code filepath.SplitList}: the
     * CRI plugin's local pull, which 1.x and 2.0 always use and 2.1 and later use whenever {@code registry.configs}
     * or {@code registry.auths} holds anything, {@code CheckLocalImagePullConfigs}; without them the pull sends no
     * configured credential whichever way it reads the list). An empty {@code config_path}: none, or on 2.2 and 2.3
     * the default directories unless {@code registry.mirrors} is set, which the agent does not read, so both.
     */
    private static List<Reading> readings(String configPath, HostLayout layout) throws PullDoubt {
        if (configPath == null || configPath.isEmpty()) {
            if (!layout.defaultDirectories) {
                return List.of(new Reading(layout, List.of(), layout.label()));
            }
            return List.of(new Reading(layout, DEFAULT_DIRECTORIES, layout.label() + " (with "
                            + String.join(":", DEFAULT_DIRECTORIES) + " unless registry.mirrors is set)"),
                    new Reading(layout, List.of(), layout.label() + " (with registry.mirrors set)"));
        }
        List<String> roots = new ArrayList<>();
        for (String root : GoPaths.splitList(configPath)) {
            if (root.isEmpty()) {
                throw new PullDoubt("registry.config_path has an empty entry, which containerd resolves against its"
                        + " working directory");
            }
            if (!root.startsWith("/")) {
                throw new PullDoubt("registry.config_path is relative: it resolves against containerd's working"
                        + " directory");
            }
            String clean = GoPaths.clean(root);
            if (!roots.contains(clean)) {
                roots.add(clean);
            }
        }
        return List.of(new Reading(layout, roots, layout.label()));
    }

    /** Why two readings answer differently, naming the first host they differ on; null when they agree. */
    private static String difference(Reading a, Resolved x, Reading b, Resolved y) {
        if (x.sent().equals(y.sent()) && x.problems().equals(y.problems())) {
            return null;
        }
        Set<String> hosts = new TreeSet<>(x.sent().keySet());
        hosts.addAll(y.sent().keySet());
        x.problems().forEach(p -> hosts.add(p.host()));
        y.problems().forEach(p -> hosts.add(p.host()));
        String host = hosts.stream().filter(h -> !Objects.equals(x.sent().get(h), y.sent().get(h))
                || !x.problems().stream().filter(p -> p.host().equals(h)).toList()
                .equals(y.problems().stream().filter(p -> p.host().equals(h)).toList())).findFirst().orElse("a host");
        if (a.layout() == b.layout()) {
            return "without registry.config_path, containerd " + a.layout().label() + " read the hosts.toml under "
                    + String.join(" and ", DEFAULT_DIRECTORIES) + " only when registry.mirrors is empty too, which the"
                    + " agent does not read, and what is there changes the credential pulls from " + host + " send";
        }
        return "containerd " + a.label() + " and containerd " + b.label() + " would send different credentials for"
                + " pulls from " + host + ", reading the hosts.toml directories differently, and which one runs is not"
                + " known from the files (--containerd-generation names the generation)";
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
        Set<String> candidates = new TreeSet<>();
        table.configs().keySet().forEach(k -> candidates.add(RegistryHosts.normalise(k)));
        table.auths().keySet().forEach(k -> candidates.add(RegistryHosts.normalise(k)));
        for (String root : reading.roots()) {
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
            RegistryAuth auth = sent(host);
            if (auth != null) {
                sent.put(host, auth);
            }
        }
        List<Problem> problems = new ArrayList<>();
        for (Map.Entry<String, RegistryAuth> e : table.configs().entrySet()) {
            problem(e.getKey(), e.getKey(), e.getValue(), false, sent).ifPresent(problems::add);
        }
        for (Map.Entry<String, RegistryAuth> e : table.auths().entrySet()) {
            problem(e.getKey(), GoUrls.authsKey(e.getKey()), e.getValue(), true, sent).ifPresent(problems::add);
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
            boolean byDefault = table.configPath() == null || table.configPath().isEmpty();
            throw new PullDoubt((byDefault ? "a default hosts directory" : "registry.config_path")
                    + " cannot be listed (" + e.getCause().getMessage() + ")");
        }
    }

    /** The credential a pull from normalised {@code host} sends, or null for none. */
    private RegistryAuth sent(String host) throws PullDoubt {
        Chain chain = chain(host);
        if (chain.certificateFailure() != null) {
            return null; // the pull fails before it sends anything
        }
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
                                                Map<String, RegistryAuth> sent) throws PullDoubt {
        String host = RegistryHosts.normalise(rawKey);
        RegistryAuth pulled = sent.get(host);
        if (host.isEmpty() || same(written, pulled)) {
            return Optional.empty();
        }
        String what = (auths ? "registry.auths " : "registry.configs ") + GoUrls.shown(rawKey);
        String gets = pulled == null ? "no credential" : "another credential";
        Chain chain = chain(host);
        if (chain.certificateFailure() != null) {
            return Optional.of(new Problem(Kind.HOSTS_CERTIFICATE_MISSING, host, chain.certificateFailure()
                    + ": the credential of " + what + " is never sent"));
        }
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

    private Chain chain(String host) throws PullDoubt {
        Chain known = chains.get(host);
        if (known != null) {
            return known;
        }
        String defaultHost = host.equals(DOCKER_IO) ? DOCKER_IO_HOST : host;
        Chain chain = new Chain(defaultHost, List.of(defaultHost), null, null);
        found:
        for (String root : reading.roots()) {
            for (String dir : hostPaths(host)) {
                String path = GoPaths.clean(root + "/" + dir);
                consulted.add(path);
                HostDir at = files.at(path);
                if (at instanceof Missing) {
                    continue;
                }
                if (at instanceof Unreadable u) {
                    throw new PullDoubt(path + ": " + u.why());
                }
                String text = ((Found) at).hostsToml();
                if (text != null && !text.isEmpty()) {
                    String where = path + "/hosts.toml";
                    HostsToml.Reading read = HostsToml.read(where, path, text, defaultHost, reading.layout());
                    if (read instanceof HostsToml.Hosts h) {
                        chain = new Chain(defaultHost, h.pulls(), where, certificateFailure(where, host,
                                h.certificates()));
                    } else if (read instanceof HostsToml.Ignored i) {
                        ignored.add("containerd " + reading.layout().label() + " ignores " + where + ": " + i.why());
                    } else {
                        throw new IllegalStateException("unexpected hosts.toml reading " + read);
                    }
                }
                break found;
            }
        }
        chains.put(host, chain);
        return chain;
    }

    /**
     * Why every pull from {@code host} fails: a certificate file the file names that containerd cannot read
     * ({@code updateTLSConfigFromHost}, at every pull, for every host the file lists); null when all are there.
     */
    private String certificateFailure(String where, String host, List<HostsToml.Certificate> certificates)
            throws PullDoubt {
        for (HostsToml.Certificate c : certificates) {
            FileAt at = files.file(c.path());
            String entry = c.entry().equals("server") ? "at its top level" : "for host " + GoUrls.shown(c.entry());
            if (at instanceof Unreadable u) {
                throw new PullDoubt(where + " names " + c.key() + " '" + c.path() + "' " + entry + ", which the agent"
                        + " cannot check (" + u.why() + ")");
            }
            if (at instanceof NoFile missing) {
                return where + " names " + c.key() + " '" + c.path() + "' " + entry + ", which " + missing.why()
                        + ": every pull from " + host + " fails when containerd sets up its TLS";
            }
            if (!(at instanceof RegularFile)) {
                throw new IllegalStateException("unexpected file state " + at);
            }
        }
        return null;
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
