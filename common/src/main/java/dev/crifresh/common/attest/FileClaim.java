package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.WatchedFile;
import java.time.Instant;

/** JSON: {@code {"path":..,"mtime":"RFC 3339","sha256":"hex"}}. */
public record FileClaim(String path, Instant mtime, String sha256) {

    /** The claim for a watched file that was read; an unreadable file has nothing to claim. */
    public static FileClaim of(WatchedFile file) {
        if (!file.isReadable()) {
            throw new IllegalArgumentException(file.path() + " was not read: " + file.readError());
        }
        return new FileClaim(file.path(), file.mtime(), file.sha256());
    }
}
