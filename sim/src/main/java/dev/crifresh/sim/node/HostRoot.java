package dev.crifresh.sim.node;

import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One simulated node's host root folder, laid out as the agent reads a Talos node (TEAM.md "Host layout"):
 * {@code proc/<pid>/{cmdline,stat,net/unix}}, {@code proc/uptime}, {@code proc/sys/kernel/random/boot_id} and
 * {@code etc/cri/...}. Config files are written in place (truncate + write, no rename), as Talos does,
 * and carry real modification times.
 */
public final class HostRoot {
    /** Where Talos' CRI containerd binds its gRPC socket (its {@code --address}). */
    public static final String CONTAINERD_SOCKET = "/run/containerd/containerd.sock";
    /** Longest socket path the kernel binds ({@code sun_path} holds 108 bytes with its NUL); shorter to be safe. */
    private static final int MAX_SOCKET_PATH = 100;

    private final Path root;

    public HostRoot(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    public Path procRoot() {
        return root.resolve("proc");
    }

    /** A node path such as {@code /etc/cri/containerd.toml} inside this root. */
    public Path file(String nodePath) {
        return root.resolve(nodePath.substring(1));
    }

    /**
     * A fresh /proc for a new boot: the boot id, {@code uptime} as of now, init and the system containerd.
     * Everything of the previous boot is gone.
     */
    public void boot(String bootId, Instant bootWall, long systemContainerdPid) {
        Path proc = procRoot();
        deleteTree(proc);
        write(proc.resolve("sys/kernel/random/boot_id"), (bootId + "\n").getBytes(StandardCharsets.US_ASCII));
        write(proc.resolve("uptime"), ProcFiles.uptime(Duration.between(bootWall, Instant.now()))
                .getBytes(StandardCharsets.US_ASCII));
        process(1, "init", 0, 0, ProcFiles.INIT);
        process(systemContainerdPid, "containerd", 1, ProcFiles.CLK_TCK, ProcFiles.SYSTEM_CONTAINERD);
    }

    /**
     * The CRI containerd appears in /proc with its Talos command line and start time. It does not serve yet: its
     * socket table has no listener until it has loaded its config and {@linkplain #bindContainerdSocket bound}.
     */
    public void startCriContainerd(long pid, long startTicks) {
        process(pid, "containerd", 1, startTicks, ProcFiles.CRI_CONTAINERD);
        write(procRoot().resolve(Long.toString(pid)).resolve("net/unix"),
                ProcFiles.unixSockets(List.of()).getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * containerd {@code pid}, having loaded its config, binds its socket as {@code sys.CreateUnixSocket} does
     * (unlink, then bind: a real socket inode), stamped {@code mtime}: the wall clock of its start, as that clock
     * read then; its socket table now shows the listener (it serves).
     */
    public void bindContainerdSocket(long pid, Instant mtime) {
        bindContainerdSocket(mtime);
        Path table = procRoot().resolve(Long.toString(pid)).resolve("net/unix");
        if (Files.isDirectory(table.getParent().getParent())) {
            write(table, ProcFiles.unixSockets(List.of(CONTAINERD_SOCKET + ".ttrpc", CONTAINERD_SOCKET))
                    .getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** The socket file alone, as {@link #bindContainerdSocket(long, Instant)} binds it. */
    void bindContainerdSocket(Instant mtime) {
        Path socket = file(CONTAINERD_SOCKET);
        try {
            Files.createDirectories(socket.getParent());
            Files.deleteIfExists(socket);
            if (socket.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH) {
                bind(socket);
            } else {
                // too long for sun_path: bind next to the temp files, then rename it in (same inode)
                Path dir = Files.createTempDirectory("cs");
                try {
                    Path shortPath = bind(dir.resolve("s"));
                    Files.move(shortPath, socket, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(dir);
                }
            }
            Files.setLastModifiedTime(socket, FileTime.from(mtime));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create containerd's socket " + socket, e);
        }
    }

    private static Path bind(Path path) throws IOException {
        try (ServerSocketChannel server =
                ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
        }
        return path;
    }

    /** The node goes down: /run is a tmpfs, containerd's socket is gone with it. */
    public void removeContainerdSocket() {
        try {
            Files.deleteIfExists(file(CONTAINERD_SOCKET));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove containerd's socket", e);
        }
    }

    /** The CRI containerd exits: its /proc entry disappears. */
    public void stopCriContainerd(long pid) {
        deleteTree(procRoot().resolve(Long.toString(pid)));
    }

    /**
     * Renders every config file, as Talos does at boot, and stamps them: the base files at {@code baseMtime},
     * the files holding the registry auth at {@code authMtime}.
     */
    public void renderConfig(String registry, Credential credential, Instant baseMtime, Instant authMtime) {
        writeInPlace(TalosConfigFiles.CONTAINERD_TOML, TalosConfigFiles.containerdToml(), false);
        writeInPlace(TalosConfigFiles.BASE_PART, TalosConfigFiles.basePart(), false);
        writeInPlace(TalosConfigFiles.REGISTRIES_PART, TalosConfigFiles.registriesPart(registry, credential), true);
        writeInPlace(TalosConfigFiles.CRI_TOML, TalosConfigFiles.criToml(registry, credential), false);
        touch(TalosConfigFiles.CONTAINERD_TOML, baseMtime);
        touch(TalosConfigFiles.BASE_PART, baseMtime);
        touch(TalosConfigFiles.REGISTRIES_PART, authMtime);
        touch(TalosConfigFiles.CRI_TOML, authMtime);
    }

    /**
     * A machine-config change on the running node: Talos rewrites the registries part and the merged file
     * in place; their modification time is the real time of the write.
     */
    public void rewriteRegistryAuth(String registry, Credential credential) {
        writeInPlace(TalosConfigFiles.REGISTRIES_PART, TalosConfigFiles.registriesPart(registry, credential), true);
        writeInPlace(TalosConfigFiles.CRI_TOML, TalosConfigFiles.criToml(registry, credential), false);
    }

    /** Every config file the agent watches, as node paths. */
    public static List<String> configFiles() {
        return List.of(TalosConfigFiles.CONTAINERD_TOML, TalosConfigFiles.BASE_PART,
                TalosConfigFiles.REGISTRIES_PART, TalosConfigFiles.CRI_TOML);
    }

    private void process(long pid, String comm, long ppid, long startTicks, List<String> argv) {
        Path dir = procRoot().resolve(Long.toString(pid));
        write(dir.resolve("cmdline"), ProcFiles.cmdline(argv));
        write(dir.resolve("stat"), ProcFiles.stat(pid, comm, ppid, startTicks).getBytes(StandardCharsets.US_ASCII));
    }

    private void writeInPlace(String nodePath, String content, boolean secret) {
        Path file = file(nodePath);
        try {
            Files.createDirectories(file.getParent());
            if (secret && !Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.write(file, content.getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void touch(String nodePath, Instant mtime) {
        try {
            Files.setLastModifiedTime(file(nodePath), FileTime.from(mtime));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set the time of " + nodePath, e);
        }
    }

    private static void write(Path file, byte[] bytes) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
