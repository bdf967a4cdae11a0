package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Optional;

/**
 * Reads one watched file: wall-clock mtime, size, SHA-256 and the bytes. Writers truncate and write in
 * place, so a single read may catch a half-written file: the file is read until two consecutive reads
 * agree on mtime, size and content, each read also checking that the attributes did not move while
 * the bytes were read.
 */
public final class ConfigFileReader {
    public static final long DEFAULT_MAX_BYTES = 1024 * 1024;
    static final int MAX_READS = 8;
    private static final long PAUSE_MILLIS = 5;

    private final long maxBytes;

    /** One file as read: the evidence, and the bytes when readable (kept in memory for registry parsing only). */
    public record FileRead(WatchedFile file, byte[] content) {
        public Optional<byte[]> bytes() {
            return Optional.ofNullable(content);
        }
    }

    private record Attempt(Instant mtime, long size, String sha256, byte[] content, boolean steady) {
        boolean agreesWith(Attempt other) {
            return steady && other.steady && mtime.equals(other.mtime) && size == other.size
                    && sha256.equals(other.sha256);
        }
    }

    public ConfigFileReader(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * @param nodePath the path as containerd sees it, recorded in the evidence
     * @param onHost   the same file under the agent's host root
     */
    public FileRead read(String nodePath, Path onHost) {
        try {
            Attempt previous = readOnce(onHost);
            for (int i = 1; i < MAX_READS; i++) {
                Attempt current = readOnce(onHost);
                if (current.agreesWith(previous)) {
                    return new FileRead(WatchedFile.readable(nodePath, current.mtime(), current.size(),
                            current.sha256()), current.content());
                }
                previous = current;
                pause(i);
            }
            return unreadable(nodePath, "kept changing during " + MAX_READS + " reads");
        } catch (TooLarge e) {
            return unreadable(nodePath, "larger than " + maxBytes + " bytes");
        } catch (NotRegular e) {
            return unreadable(nodePath, "not a regular file");
        } catch (IOException e) {
            return unreadable(nodePath, IoErrors.describe(e));
        }
    }

    private Attempt readOnce(Path file) throws IOException {
        BasicFileAttributes before = Files.readAttributes(file, BasicFileAttributes.class);
        if (!before.isRegularFile()) {
            throw new NotRegular();
        }
        if (before.size() > maxBytes) {
            throw new TooLarge();
        }
        byte[] content;
        try (InputStream in = Files.newInputStream(file)) {
            content = in.readNBytes((int) maxBytes + 1);
        }
        if (content.length > maxBytes) {
            throw new TooLarge();
        }
        BasicFileAttributes after = Files.readAttributes(file, BasicFileAttributes.class);
        boolean steady = before.lastModifiedTime().equals(after.lastModifiedTime())
                && before.size() == after.size() && after.size() == content.length;
        return new Attempt(after.lastModifiedTime().toInstant(), content.length, ConfigDigest.sha256Hex(content),
                content, steady);
    }

    private static FileRead unreadable(String nodePath, String why) {
        return new FileRead(WatchedFile.unreadable(nodePath, why), null);
    }

    private static void pause(int attempt) throws IOException {
        try {
            Thread.sleep(PAUSE_MILLIS * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while re-reading");
        }
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
