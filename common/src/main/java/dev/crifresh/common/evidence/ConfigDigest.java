package dev.crifresh.common.evidence;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The digest of a set of config files: SHA-256 over {@code path \0 sha256 \n} of every file, sorted
 * by path, written as {@code sha256:<hex>}. Empty when any file is unreadable.
 */
public final class ConfigDigest {
    private ConfigDigest() {
    }

    public static Optional<String> of(List<WatchedFile> files) {
        if (files.isEmpty() || files.stream().anyMatch(f -> !f.isReadable() || f.sha256() == null)) {
            return Optional.empty();
        }
        MessageDigest sha = sha256();
        files.stream().sorted(Comparator.comparing(WatchedFile::path)).forEach(f -> {
            sha.update(f.path().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(f.sha256().getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) '\n');
        });
        return Optional.of("sha256:" + HexFormat.of().formatHex(sha.digest()));
    }

    /** Hex SHA-256 of some bytes, as recorded per file. */
    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
