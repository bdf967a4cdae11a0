package dev.crifresh.common.evidence;

import java.time.Instant;

/**
 * One config file containerd loads, as read on the node: wall-clock mtime, size and SHA-256 of the
 * bytes, or the reason it could not be read ({@code readError} non-null; then the other fields are
 * null/0).
 */
public record WatchedFile(String path, Instant mtime, long size, String sha256, String readError) {

    public static WatchedFile readable(String path, Instant mtime, long size, String sha256) {
        return new WatchedFile(path, mtime, size, sha256, null);
    }

    public static WatchedFile unreadable(String path, String readError) {
        return new WatchedFile(path, null, 0, null, readError);
    }

    public boolean isReadable() {
        return readError == null;
    }
}
