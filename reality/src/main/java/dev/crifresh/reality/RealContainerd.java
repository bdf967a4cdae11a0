package dev.crifresh.reality;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's real containerd 1.6 started as root in a private mount namespace of its own
 * ({@code unshare --mount --propagation private}), so the paths it reads are a Talos node's without
 * touching the machine's: {@code /etc} gets an overlay whose upper layer is in the node's temp directory,
 * {@code /etc/cri} is bound from {@link CriNode#hostRoot()}, {@code /var/lib/containerd} and
 * {@code /run/containerd} from the node's {@code containerd/} directory. {@code unshare} and the shell
 * {@code exec} into containerd, so the process started here is containerd itself, with Talos's command line
 * {@code containerd --address /run/containerd/containerd.sock --config /etc/cri/containerd.toml}.
 */
public final class RealContainerd implements AutoCloseable {
    public static final List<String> TALOS_ARGS = List.of(
            "--address", "/run/containerd/containerd.sock", "--config", "/etc/cri/containerd.toml");

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

    /** Starts containerd on {@code node}'s files and returns once its CRI service answers. */
    public static RealContainerd start(CriNode node) {
        return start(node, "containerd-" + System.nanoTime() + ".log");
    }

    static RealContainerd start(CriNode node, String logName) {
        Path r = node.root();
        String script = String.join("\n",
                "set -e",
                "mount -t overlay overlay -o lowerdir=/etc,upperdir=" + r.resolve("ns/etc-upper") + ",workdir="
                        + r.resolve("ns/etc-work") + " /etc",
                "mkdir -p /etc/cri",
                "mount --bind " + node.path("/etc/cri") + " /etc/cri",
                "mount -t overlay overlay -o lowerdir=/var/lib,upperdir=" + r.resolve("ns/varlib-upper") + ",workdir="
                        + r.resolve("ns/varlib-work") + " /var/lib",
                "mkdir -p /var/lib/containerd",
                "mount --bind " + r.resolve("containerd/root") + " /var/lib/containerd",
                "mount -t tmpfs -o mode=0755 tmpfs /run",
                "mkdir -p /run/containerd",
                "mount --bind " + r.resolve("containerd/state") + " /run/containerd",
                "exec containerd " + String.join(" ", TALOS_ARGS));
        Path log = r.resolve(logName);
        try {
            Files.deleteIfExists(node.socket());
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            CriClient cri = new CriClient(node.socket());
            try {
                Waits.until(Duration.ofSeconds(60), "containerd's CRI service on " + node.socket(), () -> {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("containerd exited " + p.exitValue() + ": " + tail(log));
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
            throw new java.io.UncheckedIOException("cannot start containerd", e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public CriClient cri() {
        return cri;
    }

    public CriNode node() {
        return node;
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

    private void await() {
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
