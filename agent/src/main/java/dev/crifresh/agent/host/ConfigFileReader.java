package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Reads one watched file: wall-clock mtime, ctime, size, SHA-256 and the bytes. Writers truncate and write in
 * place, so a single read may catch a half-written file: the file is read back to back, at most
 * {@link #READS} times, until two consecutive reads agree on mtime, ctime, size and content, each read also
 * checking that the attributes did not move while the bytes were read. A file that never agrees is
 * {@linkplain FileRead#torn() torn}: unreadable (a doubt, never fresh), and worth reading again a little later,
 * which is the caller's to schedule (the agent's loop re-evaluates on its timer; nothing here sleeps).
 */
public final class ConfigFileReader {
    public static final long DEFAULT_MAX_BYTES = 1024 * 1024;
    /** Back-to-back reads of one file within one read of the node. */
    static final int READS = 3;

    private final long maxBytes;

    /**
     * One file as read: the evidence, and the bytes when readable (kept in memory for registry parsing only).
     *
     * @param torn the file kept changing while it was read (it is unreadable): read it again a little later
     */
    public record FileRead(WatchedFile file, byte[] content, boolean torn) {
        FileRead(WatchedFile file, byte[] content) {
            this(file, content, false);
        }

        public Optional<byte[]> bytes() {
            return Optional.ofNullable(content);
        }
    }

    private record Attempt(Instant mtime, Instant ctime, long size, String sha256, byte[] content, boolean steady) {
        boolean agreesWith(Attempt other) {
            return steady && other.steady && mtime.equals(other.mtime) && ctime.equals(other.ctime)
                    && size == other.size && sha256.equals(other.sha256);
        }
    }

    /** A symlink followed on the way to a file: its node path (for the message) and where it is on the host. */
    public record Link(String nodePath, Path onHost) {
    }

    public ConfigFileReader(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * @param nodePath the path as containerd sees it, recorded in the evidence
     * @param onHost   the same file under the agent's host root
     */
    public FileRead read(String nodePath, Path onHost) {
        return read(nodePath, onHost, List.of(), ChangeTimes.KERNEL);
    }

    /**
     * Reads a path resolved by {@link HostPaths}: its final component is not followed if it is a symlink
     * (it was resolved already; one swapped in since makes the file unreadable).
     */
    public FileRead read(HostPaths paths, HostPaths.Resolved resolved, ChangeTimes times) {
        if (resolved.error() != null) {
            return unreadable(resolved.nodePath(), resolved.error());
        }
        List<Link> links = resolved.symlinks().stream().map(l -> new Link(l, paths.onHost(l))).toList();
        List<Link> directories = resolved.directories().stream().filter(paths::showsNode)
                .map(d -> new Link(d, paths.onHost(d))).toList();
        return read(resolved.nodePath(), paths.onHost(resolved.realPath()), links, directories, times);
    }

    public FileRead read(String nodePath, Path onHost, List<Link> symlinks, ChangeTimes times) {
        return read(nodePath, onHost, symlinks, List.of(), times);
    }

    /**
     * @param symlinks    the symlinks followed to reach {@code onHost}: their ctimes count as changes of the file
     * @param directories the directories passed on the way (ancestors, symlink targets' parents): their
     *                    ctimes count too (renaming a directory moves its own ctime), when the host stamps
     *                    directories ({@link ChangeTimes#stampsDirectories()})
     * @param times       where ctimes come from
     */
    public FileRead read(String nodePath, Path onHost, List<Link> symlinks, List<Link> directories,
                         ChangeTimes times) {
        try {
            Attempt previous = readOnce(onHost, times);
            for (int i = 1; i < READS; i++) {
                Attempt current = readOnce(onHost, times);
                if (current.agreesWith(previous)) {
                    return readable(nodePath, current, symlinks, directories, times);
                }
                previous = current;
            }
            return new FileRead(WatchedFile.unreadable(nodePath, "kept changing during " + READS + " reads"), null, true);
        } catch (TooLarge e) {
            return unreadable(nodePath, "larger than " + maxBytes + " bytes");
        } catch (NotRegular e) {
            return unreadable(nodePath, "not a regular file");
        } catch (IOException e) {
            return unreadable(nodePath, IoErrors.describe(e));
        }
    }

    /** A settled read, stamped with the newest of its mtime, its ctime and the ctimes of the links and directories. */
    private static FileRead readable(String nodePath, Attempt current, List<Link> symlinks, List<Link> directories,
                                     ChangeTimes times) throws IOException {
        Instant changedAt = current.mtime();
        String changedBy = "mtime";
        if (current.ctime().isAfter(changedAt)) {
            changedAt = current.ctime();
            changedBy = "ctime";
        }
        for (Link link : symlinks) {
            Instant linkCtime = times.ctime(link.onHost());
            if (linkCtime.isAfter(changedAt)) {
                changedAt = linkCtime;
                changedBy = "ctime of symlink " + link.nodePath();
            }
        }
        if (times.stampsDirectories()) {
            for (Link dir : directories) {
                Instant dirCtime = times.ctime(dir.onHost());
                if (dirCtime.isAfter(changedAt)) {
                    changedAt = dirCtime;
                    changedBy = "ctime of directory " + dir.nodePath();
                }
            }
        }
        return new FileRead(WatchedFile.readable(nodePath, current.mtime(), changedAt, changedBy,
                current.size(), current.sha256()), current.content());
    }

    private Attempt readOnce(Path file, ChangeTimes times) throws IOException {
        BasicFileAttributes before = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!before.isRegularFile()) {
            throw new NotRegular();
        }
        if (before.size() > maxBytes) {
            throw new TooLarge();
        }
        byte[] content;
        Instant ctimeBefore = times.ctime(file);
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            content = in.readNBytes((int) maxBytes + 1);
        }
        if (content.length > maxBytes) {
            throw new TooLarge();
        }
        BasicFileAttributes after = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Instant ctime = times.ctime(file);
        boolean steady = before.lastModifiedTime().equals(after.lastModifiedTime()) && ctimeBefore.equals(ctime)
                && before.size() == after.size() && after.size() == content.length;
        return new Attempt(after.lastModifiedTime().toInstant(), ctime, content.length,
                ConfigDigest.sha256Hex(content), content, steady);
    }

    private static FileRead unreadable(String nodePath, String why) {
        return new FileRead(WatchedFile.unreadable(nodePath, why), null);
    }

    private static final class TooLarge extends IOException {
        TooLarge() {
            super("too large");
        }
    }

    private static final class NotRegular extends IOException {
        NotRegular() {
            super("not a regular file");
        }
    }
}
