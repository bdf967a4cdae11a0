package dev.crifresh.reality;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real containerd of one generation on a node's files, chrooted and in a private mount namespace as
 * {@link RealContainerd} starts it, but under a command line no agent takes for the CRI containerd: the program is
 * a link named {@value #PROGRAM} (so its comm is not {@code containerd} and its base name is not, which
 * {@code ContainerdMatcher} requires), the config {@value #CONFIG}, the socket {@value #ADDRESS}. The other reality
 * suites (and their agents) cannot see it, so it takes no {@link MachineLock} and several run at once. The agent
 * side of the differential test reads the files directly, never the process.
 */
final class DifferentialContainerd implements AutoCloseable {
    static final String PROGRAM = "containerd-differential";
    static final String CONFIG = "/etc/cri/differential.toml";
    static final String ADDRESS = "/run/containerd/differential.sock";
    private static final String LINK_DIR = "/opt/differential";

    private final Process process;
    private final Path log;
    private final CriClient cri;

    private DifferentialContainerd(Process process, Path log, CriClient cri) {
        this.process = process;
        this.log = log;
        this.cri = cri;
    }

    /**
     * Starts the daemon and returns once it logged that it booted (its CRI service may be missing: a CRI plugin
     * that failed to start leaves containerd serving without it), or null when it exited first (it refused its
     * config).
     */
    static DifferentialContainerd start(CriNode node, ContainerdGeneration generation, String logName) {
        Path log = node.root().resolve(logName);
        Path socket = node.path(ADDRESS);
        try {
            Files.deleteIfExists(socket);
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    script(node, generation, LINK_DIR + "/" + PROGRAM + " --address " + ADDRESS + " --config " + CONFIG))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Boolean booted = Waits.until(Duration.ofSeconds(60), "containerd to boot (log " + log + ")", () -> {
                String text = Prerequisites.readOrNull(log);
                if (text != null && text.contains("containerd successfully booted") && Files.exists(socket)) {
                    return Boolean.TRUE;
                }
                return p.isAlive() ? null : Boolean.FALSE;
            });
            if (!booted) {
                return null;
            }
            return new DifferentialContainerd(p, log, new CriClient(socket));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start containerd", e);
        }
    }

    private static String script(CriNode node, ContainerdGeneration generation, String command) {
        Path host = node.hostRoot();
        Path bin = host.resolve(RealContainerd.GENERATION_BIN.substring(1));
        Path links = host.resolve(LINK_DIR.substring(1));
        try {
            Files.createDirectories(bin);
            Files.createDirectories(links);
            Path link = links.resolve(PROGRAM);
            if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, Path.of(generation.system() ? generation.binary().toString()
                        : RealContainerd.GENERATION_BIN + "/containerd"));
            }
            for (String name : List.of("bin", "sbin", "lib", "lib64")) {
                Path onHost = Path.of("/", name);
                Path inNode = host.resolve(name);
                if (Files.isSymbolicLink(onHost) && !Files.exists(inNode, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(inNode, Files.readSymbolicLink(onHost));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + host, e);
        }
        List<String> lines = new ArrayList<>(List.of(
                "set -e",
                "mount --bind " + host + " " + host,
                "mount --bind -o ro /usr " + host.resolve("usr"),
                "mount -t proc proc " + host.resolve("proc"),
                "mount --rbind /dev " + host.resolve("dev"),
                "mount --rbind /sys " + host.resolve("sys"),
                "mount --bind -o ro '" + generation.binDir() + "' " + bin));
        lines.add("exec chroot " + host + " /usr/bin/env PATH=" + RealContainerd.GENERATION_BIN
                + ":/usr/sbin:/usr/bin:/sbin:/bin " + command);
        return String.join("\n", lines);
    }

    /** A CRI pull of {@code image} with no credential in the request. */
    CriClient.Pull pull(String image) {
        return cri.pull(image);
    }

    String logTail() {
        return RealContainerd.tail(log);
    }

    @Override
    public void close() {
        cri.close();
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
