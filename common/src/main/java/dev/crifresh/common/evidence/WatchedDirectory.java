package dev.crifresh.common.evidence;

import java.time.Instant;

/**
 * A directory that holds watched or imported config files. Creating, deleting or renaming an entry
 * changes its mtime and ctime, so a deleted override file or a file renamed over another leaves a
 * trace here even when no remaining file shows it. {@code changedAt} is the newest of its mtime, its
 * ctime and the ctimes of the symlinks on the way to it; null with {@code readError} when it exists
 * but cannot be read. A directory that does not exist is not listed.
 */
public record WatchedDirectory(String path, Instant changedAt, String changedBy, String readError) {

    public static WatchedDirectory readable(String path, Instant changedAt, String changedBy) {
        return new WatchedDirectory(path, changedAt, changedBy, null);
    }

    public static WatchedDirectory unreadable(String path, String readError) {
        return new WatchedDirectory(path, null, null, readError);
    }

    public boolean isReadable() {
        return readError == null && changedAt != null;
    }
}
