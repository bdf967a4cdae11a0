package dev.crifresh.agent.testing;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/**
 * Real unix socket inodes, made as containerd makes its own ({@code sys.CreateUnixSocket}: unlink, then
 * bind): the kernel creates the inode and stamps it with its wall clock. The listener is closed at once;
 * the inode stays, as a crashed containerd's would.
 */
public final class UnixSockets {
    private UnixSockets() {
    }

    /** Unlinks {@code path} and binds a new socket there; returns the path. */
    public static Path bind(Path path) throws IOException {
        Files.createDirectories(path.getParent());
        Files.deleteIfExists(path);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
        }
        return path;
    }

    /** {@link #bind}, then its mtime set to {@code mtime} ({@code touch -d}: the kernel sets the ctime to now). */
    public static Path bindStamped(Path path, Instant mtime) throws IOException {
        bind(path);
        Files.setLastModifiedTime(path, FileTime.from(mtime));
        return path;
    }
}
