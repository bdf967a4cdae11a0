package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/**
 * Reads the kernel's change time (ctime) of a path without following a final symlink. ctime moves on
 * every write, rename, chmod and {@code touch -d}, and user space cannot set it back: it is what proves
 * "not changed since". The simulator, whose nodes booted in a simulated past, substitutes the mtime and
 * leaves directories out (their stamps are real, the simulated boot is not).
 */
@FunctionalInterface
public interface ChangeTimes {
    /** The real ctime ({@code lstat}'s {@code st_ctime}). */
    ChangeTimes KERNEL = p -> ((FileTime) Files.getAttribute(p, "unix:ctime", LinkOption.NOFOLLOW_LINKS)).toInstant();

    /** For simulated hosts only: a file's mtime stands in for its ctime, and directories are not stamped. */
    ChangeTimes MTIME = new ChangeTimes() {
        @Override
        public Instant ctime(Path onHost) throws IOException {
            return Files.getLastModifiedTime(onHost, LinkOption.NOFOLLOW_LINKS).toInstant();
        }

        @Override
        public boolean stampsDirectories() {
            return false;
        }
    };

    Instant ctime(Path onHost) throws IOException;

    /** Whether the stamps of the watched directories count as changes (always, except on a simulated host). */
    default boolean stampsDirectories() {
        return true;
    }
}
