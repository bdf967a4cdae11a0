package dev.crifresh.reality;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real containerd of one {@link ContainerdGeneration} (Debian's own 1.6, or 1.7, 2.1, 2.2 and 2.3 from
 * {@code reality/bin/fetch-containerd}'s cache) started as root in a private mount namespace of its own
 * ({@code unshare --mount --propagation private}) and chrooted into the node's root ({@link CriNode#hostRoot()}),
 * so the paths it reads are a Talos node's without touching the machine's: {@code /etc/cri},
 * {@code /var/lib/containerd} and {@code /run/containerd} are plain directories of the node's tree, the
 * agent's host root. Only {@code /usr} (read-only), {@code /proc}, {@code /dev} and {@code /sys} are mounted
 * into the chroot, none on the way to the config. {@code unshare}, the shell and {@code chroot} each
 * {@code exec} the next, so the process started here is containerd itself, with Talos's command line
 * {@code containerd --address /run/containerd/containerd.sock --config /etc/cri/containerd.toml}. A generation
 * other than the system's has its binary directory bind-mounted read-only at {@link #GENERATION_BIN} in the
 * node's root and first on containerd's {@code PATH}, so it runs its own shims (with the system's runc).
 */
public final class RealContainerd implements AutoCloseable {
    public static final List<String> TALOS_ARGS = List.of(
            "--address", "/run/containerd/containerd.sock", "--config", "/etc/cri/containerd.toml");

    /** Where a fetched generation's binaries appear inside the node's root (not on the way to the config). */
    public static final String GENERATION_BIN = "/opt/containerd/bin";

    private final Process process;
    private final CriNode node;
    private final Path log;
    private final CriClient cri;

    private RealContainerd(Process process, CriNode node, Path log, CriClient cri) {
        this.process = process;
        this.node = node;
        this.log = log;
        this.cri = cri;
    }

    /** Starts Debian's containerd 1.6 on {@code node}'s files and returns once its CRI service answers. */
    public static RealContainerd start(CriNode node) {
        return start(node, ContainerdGeneration.named("1.6"));
    }

    /** Starts {@code generation}'s containerd on {@code node}'s files and returns once its CRI service answers. */
    public static RealContainerd start(CriNode node, ContainerdGeneration generation) {
        return start(node, generation, "containerd-" + System.nanoTime() + ".log");
    }

    static RealContainerd start(CriNode node, ContainerdGeneration generation, String logName) {
        return start(node, generation, logName, true);
    }

    /**
     * Starts {@code generation}'s containerd and returns once it logged that it booted, whether or not its CRI
     * service answers (a CRI plugin that failed to start leaves containerd serving without it).
     */
    public static RealContainerd startBooted(CriNode node, ContainerdGeneration generation) {
        return start(node, generation, "containerd-" + System.nanoTime() + ".log", false);
    }

    /**
     * Prepares the node's root ({@code host}) like a host's and returns the shell script that mounts it and runs
     * {@code generation}'s containerd in it.
     */
    private static String prepareScript(Path host, ContainerdGeneration generation) {
        linkLikeHost(host);
        List<String> mountBin = List.of();
        String exec = "exec chroot " + host + " containerd " + String.join(" ", TALOS_ARGS);
        if (!generation.system()) {
            Path bin = host.resolve(GENERATION_BIN.substring(1));
            try {
                Files.createDirectories(bin);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot create " + bin, e);
            }
            mountBin = List.of("mount --bind -o ro '" + generation.binDir() + "' " + bin);
            exec = "exec chroot " + host + " /usr/bin/env PATH=" + GENERATION_BIN + ":/usr/sbin:/usr/bin:/sbin:/bin "
                    + "containerd " + String.join(" ", TALOS_ARGS); // found on PATH: argv[0] is "containerd", as on Talos
        }
        List<String> lines = new java.util.ArrayList<>(List.of(
                "set -e",
                // the node's root a mount point of its own: runc, run by containerd's shim in this chroot, makes
                // "/" a recursive slave mount before it prepares a container's root, which fails (EINVAL) where
                // "/" is only a directory
                "mount --bind " + host + " " + host,
                "mount --bind -o ro /usr " + host.resolve("usr"),
                "mount -t proc proc " + host.resolve("proc"),
                "mount --rbind /dev " + host.resolve("dev"),
                "mount --rbind /sys " + host.resolve("sys")));
        lines.addAll(mountBin);
        lines.add(exec);
        return String.join("\n", lines);
    }

    private static RealContainerd start(CriNode node, ContainerdGeneration generation, String logName,
                                        boolean criReady) {
        generation.missing().ifPresent(m -> {
            throw new IllegalStateException("cannot start " + generation + ": " + m);
        });
        Path r = node.root();
        String script = prepareScript(node.hostRoot(), generation);
        Path log = r.resolve(logName);
        MachineLock.acquire();
        try {
            Files.deleteIfExists(node.socket());
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            CriClient cri = new CriClient(node.socket());
            try {
                Waits.until(Duration.ofSeconds(60), "containerd's CRI service on " + node.socket(), () -> {
                    if (!p.isAlive()) {
                        throw new Exited(p.pid(), p.exitValue(), tail(log));
                    }
                    if (!criReady) {
                        String text = Prerequisites.readOrNull(log);
                        return Files.exists(node.socket()) && text != null
                                && text.contains("containerd successfully booted") ? Boolean.TRUE : null;
                    }
                    return Files.exists(node.socket()) && cri.ready() ? Boolean.TRUE : null;
                });
            } catch (RuntimeException e) {
                cri.close();
                p.destroyForcibly();
                throw e;
            }
            return new RealContainerd(p, node, log, cri);
        } catch (java.io.IOException e) {
            MachineLock.release();
            throw new java.io.UncheckedIOException("cannot start containerd", e);
        } catch (RuntimeException e) {
            MachineLock.release();
            throw e;
        }
    }

    /** containerd exited before its CRI service answered (e.g. it refused its config): its pid and last lines. */
    public static final class Exited extends IllegalStateException {
        private final long pid;

        Exited(long pid, int code, String log) {
            super("containerd (pid " + pid + ") exited " + code + ": " + log);
            this.pid = pid;
        }

        public long pid() {
            return pid;
        }
    }

    public long pid() {
        return process.pid();
    }

    public CriClient cri() {
        return cri;
    }

    public CriNode node() {
        return node;
    }

    /**
     * Runs {@code argv} inside containerd's mount namespace (not its root): {@code nsenter --mount}. Paths are
     * the machine's, e.g. {@code <node>/host/etc/cri/conf.d}.
     */
    public String inMountNamespace(List<String> argv) {
        List<String> cmd = new java.util.ArrayList<>(List.of("nsenter", "--target", Long.toString(pid()), "--mount"));
        cmd.addAll(argv);
        return Commands.check(cmd);
    }

    /** The host's merged-/usr links ({@code /bin -> usr/bin}, …) inside the node's root, so binaries resolve. */
    private static void linkLikeHost(Path host) {
        for (String name : List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32")) {
            Path onHost = Path.of("/", name);
            Path inNode = host.resolve(name);
            try {
                if (Files.isSymbolicLink(onHost) && !Files.exists(inNode, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(inNode, Files.readSymbolicLink(onHost));
                } else if (Files.isDirectory(onHost, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    throw new IllegalStateException("/" + name + " is a directory, not a link into /usr: the harness"
                            + " needs a merged-/usr system (Debian 12 or later)");
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot link " + inNode, e);
            }
        }
    }

    /** The last lines containerd logged, for failure messages. */
    public String logTail() {
        return tail(log);
    }

    /** SIGKILL, as an OOM kill or a crash ends it; returns once the process is gone. */
    public void kill() {
        cri.close();
        process.destroyForcibly();
        await();
    }

    /** SIGTERM, and SIGKILL if it has not exited after 20 s. */
    @Override
    public void close() {
        cri.close();
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        await();
    }

    private boolean released;

    private void await() {
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (!released) {
                released = true;
                MachineLock.release();
            }
        }
    }

    static String tail(Path log) {
        String text = Prerequisites.readOrNull(log);
        if (text == null) {
            return "(no log)";
        }
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    }
}
