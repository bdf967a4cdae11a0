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
 * "not changed since". The simulator, whose nodes booted in a simulated past, substitutes the mtime.
 */
@FunctionalInterface
public interface ChangeTimes {
    /** The real ctime ({@code lstat}'s {@code st_ctime}). */
    ChangeTimes KERNEL = p -> ((FileTime) Files.getAttribute(p, "unix:ctime", LinkOption.NOFOLLOW_LINKS)).toInstant();

    /** For simulated hosts only: a file's mtime stands in for its ctime. */
    ChangeTimes MTIME = p -> Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toInstant();

    Instant ctime(Path onHost) throws IOException;
}
