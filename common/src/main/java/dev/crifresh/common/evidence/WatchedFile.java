package dev.crifresh.common.evidence;

import java.time.Instant;

/**
 * One config file containerd loads, as read on the node: wall-clock mtime, size and SHA-256 of the
 * bytes, or the reason it could not be read ({@code readError} non-null; then the other fields are
 * null/0).
 *
 * <p>{@code changedAt} is the newest of every time stamp that moves when what containerd would read
 * under this path changes: the file's mtime and ctime, and the ctime of every symlink on the way to it
 * (rule 3 uses it). mtime can be set back from user space ({@code touch -d}); ctime cannot, and replacing
 * a symlink gives it a new ctime. {@code changedBy} names which stamp it is, for the message.
 */
public record WatchedFile(String path, Instant mtime, Instant changedAt, String changedBy, long size, String sha256,
                          String readError) {

    /** A file whose only stamp is its mtime (as in simulations without a kernel ctime). */
    public static WatchedFile readable(String path, Instant mtime, long size, String sha256) {
        return new WatchedFile(path, mtime, mtime, "mtime", size, sha256, null);
    }

    /**
     * @param changedAt the newest of mtime, ctime and the ctimes of the symlinks on the path (not before mtime)
     * @param changedBy which stamp {@code changedAt} is, e.g. {@code ctime} or {@code symlink /etc/cri/x ctime}
     */
    public static WatchedFile readable(String path, Instant mtime, Instant changedAt, String changedBy, long size,
                                       String sha256) {
        return new WatchedFile(path, mtime, changedAt, changedBy, size, sha256, null);
    }

    public static WatchedFile unreadable(String path, String readError) {
        return new WatchedFile(path, null, null, null, 0, null, readError);
    }

    public boolean isReadable() {
        return readError == null;
    }
}
