package dev.crifresh.common.evidence;

import java.time.Instant;

/**
 * containerd's own gRPC socket, read as a same-clock witness of its start (DESIGN, "The clock witness"):
 * containerd unlinks and re-binds it at every start, after reading its config, so its mtime is the wall
 * clock as it was at that moment, whatever steps the clock took since.
 *
 * @param path    the node path, from containerd's {@code --address}
 * @param mtime   the socket's modification time (set by the kernel at {@code bind}); null when not usable
 * @param ctime   its change time (the {@code chmod}/{@code chown} containerd does right after binding, or a
 *                later {@code touch}); null when not usable
 * @param problem why the socket cannot be used (missing, unreadable, not a socket); null when it can
 */
public record ContainerdSocket(String path, Instant mtime, Instant ctime, String problem) {

    public static ContainerdSocket found(String path, Instant mtime, Instant ctime) {
        return new ContainerdSocket(path, mtime, ctime, null);
    }

    public static ContainerdSocket unusable(String path, String problem) {
        return new ContainerdSocket(path, null, null, problem);
    }

    public boolean usable() {
        return problem == null && mtime != null && ctime != null;
    }
}
