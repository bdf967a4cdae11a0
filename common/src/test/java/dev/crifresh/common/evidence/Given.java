package dev.crifresh.common.evidence;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A readable way to build one {@link Observation} per table row. Times are given relative to boot.
 * The default is an ordinary fresh Talos boot: config written at 1.000–2.050 s, containerd (pid 1234)
 * started at 5.000 s (500 ticks at CLK_TCK 100), observed at 60 s, a perfect boot clock.
 */
final class Given {
    static final Instant BOOT = Instant.parse("2025-03-01T10:00:00Z");
    static final String BOOT_ID = "3f0c2b8e-6a3c-4f8e-9d0a-5b7c1e2d4f60";
    static final String CONTAINERD_TOML = "/etc/cri/containerd.toml";
    static final String CRI_TOML = "/etc/cri/conf.d/cri.toml";
    static final String REGISTRIES_PART = "/etc/cri/conf.d/01-registries.part";
    static final long PID = 1234;
    /** The content of cri.toml in the default observation. */
    static final String CRI_V1 = "## merged v1\n";
    static final List<String> CRI_CMDLINE = List.of("/bin/containerd",
            "--address", "/run/containerd/containerd.sock", "--config", "/etc/cri/containerd.toml");

    private String bootId = BOOT_ID;
    private Instant boot = BOOT;
    private Duration error = Duration.ZERO;
    private boolean clockReadable = true;
    private String hostError;
    private long clkTck = 100;
    private List<ProcessSample> candidates = new ArrayList<>(List.of(cri(PID, 500)));
    /** Each file as a function of the boot wall time, so {@link #bootAt} moves everything together. */
    private final Map<String, Function<Instant, WatchedFile>> files = new TreeMap<>();
    private Duration observedAt = Duration.ofSeconds(60);
    /** Directory change stamps, as a function of the boot wall time. */
    private final Map<String, Function<Instant, WatchedDirectory>> directories = new TreeMap<>();
    private final List<String> unwatchedImports = new ArrayList<>();
    private final List<String> mountProblems = new ArrayList<>();
    /** containerd's socket as a function of the boot wall time; null: not read. */
    private Function<Instant, ContainerdSocket> socket;
    /** What containerd's socket table shows; by default it listens at Talos' address. */
    private ContainerdListener listener = ContainerdListener.listening("/run/containerd/containerd.sock");

    private Given() {
        file(CONTAINERD_TOML, ms(1000), "version = 3\nimports = ['/etc/cri/conf.d/cri.toml']\n");
        file(REGISTRIES_PART, ms(2000), "[plugins.'io.containerd.cri.v1.images'.registry.configs] # v1\n");
        file(CRI_TOML, ms(2050), CRI_V1);
    }

    static Given given() {
        return new Given();
    }

    static ProcessSample cri(long pid, long startTicks) {
        return new ProcessSample(pid, startTicks, CRI_CMDLINE);
    }

    static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    static Duration ns(long nanos) {
        return Duration.ofNanos(nanos);
    }

    static String sha(String content) {
        return ConfigDigest.sha256Hex(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Adds or replaces a readable file written {@code sinceBoot} after boot (negative: before). */
    Given file(String path, Duration sinceBoot, String content) {
        String sha = sha(content);
        files.put(path, b -> WatchedFile.readable(path, b.plus(sinceBoot), content.length(), sha));
        return this;
    }

    /** Moves cri.toml, the newest file by default, keeping its content (an identical rewrite). */
    Given newest(Duration sinceBoot) {
        return touch(CRI_TOML, sinceBoot);
    }

    /** Sets a file's mtime, keeping its content. */
    Given touch(String path, Duration sinceBoot) {
        Function<Instant, WatchedFile> old = files.get(path);
        files.put(path, b -> {
            WatchedFile f = old.apply(b);
            return WatchedFile.readable(path, b.plus(sinceBoot), f.size(), f.sha256());
        });
        return this;
    }

    /** Sets every file's mtime, keeping contents (e.g. all written before the clock was stepped). */
    Given allFilesAt(Duration sinceBoot) {
        new ArrayList<>(files.keySet()).forEach(path -> touch(path, sinceBoot));
        return this;
    }

    /** Rewrites cri.toml with other content, at a given time since boot. */
    Given criToml(Duration sinceBoot, String content) {
        return file(CRI_TOML, sinceBoot, content);
    }

    /**
     * A file whose newest change stamp is later than its mtime: its ctime (after {@code touch -d}, a
     * rename, a rewrite whose mtime was set back) or the ctime of a symlink on its path.
     */
    Given changed(String path, Duration sinceBoot, String by) {
        Function<Instant, WatchedFile> old = files.get(path);
        files.put(path, b -> {
            WatchedFile f = old.apply(b);
            return WatchedFile.readable(path, f.mtime(), b.plus(sinceBoot), by, f.size(), f.sha256());
        });
        return this;
    }

    /** A watched directory whose newest change (an entry created, deleted or renamed) was at this time. */
    Given directory(String path, Duration sinceBoot) {
        directories.put(path, b -> WatchedDirectory.readable(path, b.plus(sinceBoot), "mtime"));
        return this;
    }

    Given unreadableDirectory(String path, String error) {
        directories.put(path, b -> WatchedDirectory.unreadable(path, error));
        return this;
    }

    /** containerd loads this file, but the agent does not watch it. */
    Given unwatchedImport(String path) {
        unwatchedImports.add(path);
        return this;
    }

    /** containerd's mount table shows a mount on the way to the config that the platform does not create. */
    Given mounted(String problem) {
        mountProblems.add(problem);
        return this;
    }

    Given unreadable(String path, String error) {
        files.put(path, b -> WatchedFile.unreadable(path, error));
        return this;
    }

    Given raw(WatchedFile file) {
        files.put(file.path(), b -> file);
        return this;
    }

    Given noFiles() {
        files.clear();
        return this;
    }

    /** containerd (pid 1234) started this many clock ticks after boot. */
    Given startTicks(long ticks) {
        candidates = new ArrayList<>(List.of(cri(PID, ticks)));
        return this;
    }

    Given containerds(ProcessSample... processes) {
        candidates = new ArrayList<>(List.of(processes));
        return this;
    }

    Given clkTck(long ticksPerSecond) {
        clkTck = ticksPerSecond;
        return this;
    }

    Given clockError(Duration e) {
        error = e;
        return this;
    }

    /** Boot happened at this wall time; file and observation times move with it. */
    Given bootAt(Instant wall) {
        boot = wall;
        return this;
    }

    Given bootId(String id) {
        bootId = id;
        return this;
    }

    Given noBootId() {
        bootId = null;
        hostError = "NoSuchFileException: /proc/sys/kernel/random/boot_id";
        return this;
    }

    Given noClock() {
        clockReadable = false;
        hostError = "NoSuchFileException: /proc/uptime";
        return this;
    }

    Given observedAt(Duration sinceBoot) {
        observedAt = sinceBoot;
        return this;
    }

    Observation build() {
        BootClock clock = clockReadable ? new BootClock(boot, error) : null;
        List<WatchedFile> built = new ArrayList<>();
        files.values().forEach(f -> built.add(f.apply(boot)));
        List<WatchedDirectory> dirs = new ArrayList<>();
        directories.values().forEach(d -> dirs.add(d.apply(boot)));
        return new Observation(bootId, clock, hostError, clkTck, candidates, built, dirs, unwatchedImports,
                boot.plus(observedAt), mountProblems, socket == null ? null : socket.apply(boot), null, listener);
    }

    /** The same observation with its file list reversed (the rules must not care about order). */
    Observation buildReversed() {
        Observation o = build();
        List<WatchedFile> reversed = new ArrayList<>(o.files());
        java.util.Collections.reverse(reversed);
        List<WatchedDirectory> dirs = new ArrayList<>(o.directories());
        java.util.Collections.reverse(dirs);
        return new Observation(o.bootId(), o.clock(), o.hostError(), o.clkTck(), o.candidates(), reversed, dirs,
                o.unwatchedImports(), o.observedAt(), o.mountProblems(), o.containerdSocket(), o.introspection(),
                o.listener());
    }

    /** containerd's socket, bound {@code sinceBoot} after boot in today's clock (mtime and ctime alike). */
    Given socket(Duration sinceBoot) {
        return socket(sinceBoot, sinceBoot);
    }

    /** containerd's socket with its own mtime and ctime (a touched socket has a later ctime). */
    Given socket(Duration mtimeSinceBoot, Duration ctimeSinceBoot) {
        socket = b -> ContainerdSocket.found("/run/containerd/containerd.sock", b.plus(mtimeSinceBoot),
                b.plus(ctimeSinceBoot));
        return this;
    }

    /** What containerd's socket table shows at its address; null: not read. */
    Given listener(ContainerdListener read) {
        listener = read;
        return this;
    }

    Given unusableSocket(String problem) {
        socket = b -> ContainerdSocket.unusable("/run/containerd/containerd.sock", problem);
        return this;
    }
}
