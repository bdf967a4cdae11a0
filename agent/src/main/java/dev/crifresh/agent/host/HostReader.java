package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.ContainerdListener;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.WatchedDirectory;
import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.text.IoErrors;
import dev.crifresh.common.text.StrictUtf8;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads one {@link Observation} from a proc root and a host root. Blocking file I/O: call it on a
 * worker thread. Processes are read before the files, so any config change after containerd's start
 * is visible in the files read.
 *
 * <p>The evidence set is derived from containerd itself: the config named on its command line and,
 * recursively, that config's {@code imports} ({@link ContainerdImports}); every one of them must be
 * among the watched files. Paths resolve under the host root ({@link HostPaths}), and every file and
 * directory carries its newest change stamp (mtime, ctime, the ctimes of symlinks on the way).
 */
public final class HostReader {
    private final ProcessScanner scanner;
    private final BootIdReader bootIds;
    private final BootClockSampler bootClock;
    private final Path procRoot;
    private final List<String> watchGlobs;
    private final View hostView;
    private final MountPolicy mounts;
    private final ConfigFileReader files;
    private final ContainerdMatcher matcher;
    private final HostClock clock;
    private final ChangeTimes times;
    /** What the last read looked at, for {@link #stamps()}: the view, containerd's pid, the evidence paths. */
    private volatile Tracked tracked;

    /** The evidence as seen under one root: the host root, or containerd's own root. */
    private record View(Path root, WatchGlobs globs, HostPaths paths, ContainerdImports imports) {
        static View of(Path root, List<String> watchGlobs) {
            HostPaths paths = new HostPaths(root);
            return new View(root, new WatchGlobs(root, watchGlobs), paths, new ContainerdImports(paths));
        }
    }

    private record Tracked(View view, Long pid, Set<String> evidence, HostsDirectory hosts) {
    }

    public HostReader(Path procRoot, Path hostRoot, List<String> watchGlobs, ContainerdMatcher matcher,
                      HostClock clock, MountPolicy mounts) {
        this.scanner = new ProcessScanner(procRoot);
        this.bootIds = new BootIdReader(procRoot);
        this.bootClock = new BootClockSampler(clock, BootClockSampler.DEFAULT_SAMPLES);
        this.procRoot = procRoot;
        this.watchGlobs = List.copyOf(watchGlobs);
        this.hostView = View.of(hostRoot, watchGlobs);
        this.mounts = mounts;
        this.files = new ConfigFileReader(ConfigFileReader.DEFAULT_MAX_BYTES);
        this.matcher = matcher;
        this.clock = clock;
        this.times = clock.changeTimes();
        this.tracked = new Tracked(hostView, null, Set.of(), new HostsDirectory(hostView.paths()));
    }

    /** The view of one containerd: its root (and mount namespace) when so configured, else the host root. */
    private View viewFor(Long pid) {
        if (pid == null || !mounts.throughContainerdRoot()) {
            return hostView;
        }
        Path root = procRoot.resolve(Long.toString(pid)).resolve("root");
        String prefix = mounts.nodePrefix().replaceFirst("^/+", "");
        Path nodeRoot = prefix.isEmpty() ? root : root.resolve(prefix);
        Tracked last = tracked;
        return last.view().root().equals(nodeRoot) ? last.view() : View.of(nodeRoot, watchGlobs);
    }

    public HostSnapshot read() {
        Instant observedAt = clock.wallNow();
        List<String> hostErrors = new ArrayList<>();
        String bootId = null;
        try {
            bootId = bootIds.read();
        } catch (IOException e) {
            hostErrors.add("boot id unreadable: " + IoErrors.describe(e));
        }
        List<ProcessSample> candidates = List.of();
        List<String> unreadableProcesses = List.of();
        try {
            ProcessScan scan = scanner.scan(matcher);
            candidates = scan.matched();
            unreadableProcesses = scan.unreadable();
        } catch (IOException e) {
            hostErrors.add("process list unreadable: " + IoErrors.describe(e));
        }
        BootClock boot = null;
        try {
            boot = bootClock.sample();
        } catch (IOException e) {
            hostErrors.add("uptime unreadable: " + IoErrors.describe(e));
        }
        Long pid = candidates.size() == 1 ? candidates.get(0).pid() : null;
        View view = viewFor(pid);
        Set<String> evidence = new LinkedHashSet<>();
        WatchGlobs.Expansion expansion = view.globs().expand();
        FileReads fileReads = readFiles(view.paths(), expansion, evidence);
        Map<String, String> texts = fileReads.texts();

        ContainerdImports.Closure closure = null;
        ContainerdSocket socket = null;
        if (candidates.size() == 1
                && matcher.match(candidates.get(0).cmdline()) instanceof ContainerdMatcher.Yes yes) {
            closure = view.imports().resolve(yes.config(), texts);
            socket = new ContainerdSocketReader(view.paths(), times).read(candidates.get(0).cmdline());
        }
        List<String> loaded = closure != null ? closure.loaded()
                : texts.keySet().stream().filter(p -> p.endsWith(".toml")).toList();
        List<ConfigDocument> toml = loaded.stream().filter(path -> texts.get(path) != null)
                .map(path -> new ConfigDocument(path, texts.get(path))).toList();
        ContainerdListener listener = null;
        if (closure != null) {
            ContainerdAddress.Resolved resolved = ContainerdAddress.of(candidates.get(0).cmdline(), toml);
            listener = resolved.address() == null ? ContainerdListener.unreadable(null, resolved.problem())
                    : UnixSocketTable.read(procRoot, pid, resolved.address());
        }
        List<String> loadedUndecodable = fileReads.undecodable().stream()
                .filter(u -> loaded.stream().anyMatch(p -> u.startsWith(p + ": "))).toList();

        List<WatchedDirectory> directories = stampDirectories(view, expansion, closure, evidence);
        HostsDirectory hosts = new HostsDirectory(view.paths());
        tracked = new Tracked(view, pid, Set.copyOf(evidence), hosts);

        String hostError = hostErrors.isEmpty() ? null : String.join("; ", hostErrors);
        Observation observation = new Observation(bootId, boot, hostError, ProcStat.CLK_TCK, candidates, fileReads.watched(),
                directories, closure == null ? List.of() : closure.unwatched(), observedAt,
                mountProblems(pid, evidence), socket, null, listener);
        return new HostSnapshot(observation, toml, unreadableProcesses, loadedUndecodable, hosts, fileReads.torn());
    }

    /** What reading the watched files gave: each file's stamp, its text (null when unreadable or not UTF-8). */
    private record FileReads(List<WatchedFile> watched, Map<String, String> texts, List<String> undecodable,
                             List<String> torn) {
    }

    /** Reads every watched file, adding each one's real path and directories to {@code evidence}. */
    private FileReads readFiles(HostPaths paths, WatchGlobs.Expansion expansion, Set<String> evidence) {
        List<WatchedFile> watched = new ArrayList<>(expansion.unlistable());
        Map<String, String> texts = new LinkedHashMap<>();
        List<String> undecodable = new ArrayList<>();
        List<String> torn = new ArrayList<>();
        for (String path : expansion.paths()) {
            HostPaths.Resolved resolved = paths.resolve(path);
            evidence.add(resolved.realPath());
            evidence.addAll(resolved.directories());
            ConfigFileReader.FileRead read = files.read(paths, resolved, times);
            watched.add(read.file());
            if (read.torn()) {
                torn.add(path);
            }
            String text = null;
            if (read.content() != null) {
                text = StrictUtf8.decode(read.content()).orElse(null);
                if (text == null) {
                    undecodable.add(path + ": not valid UTF-8");
                }
            }
            texts.put(path, text);
        }
        watched.sort(Comparator.comparing(WatchedFile::path));
        return new FileReads(watched, texts, undecodable, torn);
    }

    /**
     * Stamps every directory of the watch globs, of the watched files and of containerd's imports, adding each one's
     * real path and directories to {@code evidence}.
     */
    private List<WatchedDirectory> stampDirectories(View view, WatchGlobs.Expansion expansion,
                                                    ContainerdImports.Closure closure, Set<String> evidence) {
        Set<String> dirs = new LinkedHashSet<>(view.globs().directories());
        expansion.paths().forEach(p -> dirs.add(HostPaths.parent(p)));
        if (closure != null) {
            dirs.addAll(closure.directories());
        }
        List<WatchedDirectory> directories = new ArrayList<>();
        for (String dir : dirs) {
            HostPaths.Resolved resolved = view.paths().resolve(dir);
            evidence.add(resolved.realPath());
            evidence.addAll(resolved.directories());
            WatchedDirectory d = stampDirectory(view, dir);
            if (d != null) {
                directories.add(d);
            }
        }
        directories.sort(Comparator.comparing(WatchedDirectory::path));
        return directories;
    }

    /**
     * Containerd's mount points on the way to the evidence that the platform does not create
     * ({@link MountCheck}), or why its mount table cannot be read. A simulated host
     * ({@link ChangeTimes#stampsDirectories()} false) has no mount table; without a single containerd the
     * verdict is unknown anyway.
     */
    private List<String> mountProblems(Long pid, Set<String> evidence) {
        if (pid == null || !times.stampsDirectories()) {
            return List.of();
        }
        try {
            List<MountTable.Mount> table = MountTable.read(procRoot.resolve(Long.toString(pid)).resolve("mountinfo"));
            return MountCheck.unexpected(table, evidence, mounts.nodePrefix(), mounts.expectedMounts());
        } catch (IOException e) {
            return List.of("the mount table of containerd (pid " + pid + ") is unreadable ("
                    + IoErrors.describe(e) + ")");
        }
    }

    /**
     * A directory's newest change stamp (mtime, ctime, the ctimes of symlinks and directories on the way), or null when
     * it does not exist (or on a simulated host, {@link ChangeTimes#stampsDirectories()}).
     */
    private WatchedDirectory stampDirectory(View view, String dir) {
        if (!times.stampsDirectories()) {
            return null;
        }
        HostPaths paths = view.paths();
        HostPaths.Resolved r = paths.resolve(dir);
        if (r.error() != null) {
            return WatchedDirectory.unreadable(dir, r.error());
        }
        Path onHost = paths.onHost(r.realPath());
        try {
            BasicFileAttributes a = Files.readAttributes(onHost, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory()) {
                return WatchedDirectory.unreadable(dir, "not a directory");
            }
            Instant at = a.lastModifiedTime().toInstant();
            String by = "mtime";
            Instant ctime = times.ctime(onHost);
            if (ctime.isAfter(at)) {
                at = ctime;
                by = "ctime";
            }
            for (String link : r.symlinks()) {
                Instant linkCtime = times.ctime(paths.onHost(link));
                if (linkCtime.isAfter(at)) {
                    at = linkCtime;
                    by = "ctime of symlink " + link;
                }
            }
            for (String above : r.directories()) {
                if (!paths.showsNode(above)) {
                    continue;
                }
                Instant aboveCtime = times.ctime(paths.onHost(above));
                if (aboveCtime.isAfter(at)) {
                    at = aboveCtime;
                    by = "ctime of directory " + above;
                }
            }
            return WatchedDirectory.readable(dir, at, by);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            return WatchedDirectory.unreadable(dir, IoErrors.describe(e));
        }
    }

    /**
     * Every stamp the evidence depends on, cheap to compare (no content read): for each watched file its
     * resolved path, mtime, ctime, size and the ctimes of the symlinks on its way; for each directory its
     * change stamp. A difference from the last evaluation's stamps means: evaluate again.
     */
    public Map<String, String> stamps() {
        Map<String, String> signature = new TreeMap<>();
        Tracked last = tracked;
        View view = last.view();
        HostPaths paths = view.paths();
        WatchGlobs.Expansion expansion = view.globs().expand();
        expansion.unlistable().forEach(f -> signature.put(f.path(), "unlistable"));
        Set<String> dirs = new LinkedHashSet<>(view.globs().directories());
        for (String path : expansion.paths()) {
            dirs.add(HostPaths.parent(path));
            HostPaths.Resolved r = paths.resolve(path);
            StringBuilder s = new StringBuilder(r.realPath()).append(r.error() == null ? "" : " " + r.error());
            try {
                for (String link : r.symlinks()) {
                    s.append(" link ").append(link).append('@').append(times.ctime(paths.onHost(link)));
                }
                if (times.stampsDirectories()) {
                    for (String above : r.directories()) {
                        if (!paths.showsNode(above)) {
                            continue;
                        }
                        s.append(" dir ").append(above).append('@').append(times.ctime(paths.onHost(above)));
                    }
                }
                Path onHost = paths.onHost(r.realPath());
                BasicFileAttributes a = Files.readAttributes(onHost, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                s.append(a.isRegularFile() ? " " + a.lastModifiedTime() + "/" + times.ctime(onHost) + "/" + a.size()
                        : " not a file");
            } catch (IOException e) {
                s.append(" unreadable: ").append(e.getClass().getSimpleName());
            }
            signature.put(path, s.toString());
        }
        for (String dir : dirs) {
            WatchedDirectory d = stampDirectory(view, dir);
            signature.put(dir + "/", d == null ? "missing" : d.changedAt() + " " + d.readError());
        }
        // hosts.toml is read at every pull: a change there changes the credential a pull sends.
        signature.putAll(last.hosts().stamps(times));
        // A mount moves no stamp: the mounts on the evidence's way are part of the signature.
        signature.put("\0mounts", String.join("\n", mountProblems(last.pid(), last.evidence())));
        return signature;
    }

    /**
     * The node directories under {@code registry.config_path} the last evaluation looked at (the root and each
     * host's candidate directories), for the file watcher: containerd reads them at every pull.
     */
    public Set<String> hostsDirectories() {
        return tracked.hosts().consulted();
    }

    /** Whether containerd {@code pid} listens at {@code address} now ({@link UnixSocketTable}), for the poll. */
    public ContainerdListener listener(long pid, String address) {
        return UnixSocketTable.read(procRoot, pid, address);
    }

    /** The watched globs, for the file watcher and the poller. */
    public WatchGlobs globs() {
        return hostView.globs();
    }

    public HostPaths paths() {
        return hostView.paths();
    }

    public ProcessScanner scanner() {
        return scanner;
    }
}
