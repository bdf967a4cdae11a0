package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** {@code --out-dir DIR}: signing.key (0600), jwks.json (0644), fingerprint.key (0600). */
final class FileKeyStore implements KeyStore {
    static final String SIGNING_KEY_FILE = "signing.key";

    private final Path dir;

    FileKeyStore(Path dir) {
        this.dir = dir;
    }

    @Override
    public String readSigningKey() throws IOException {
        Path p = dir.resolve(SIGNING_KEY_FILE);
        return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : null;
    }

    @Override
    public TrustParts readTrust() throws IOException {
        Path jwks = dir.resolve(TrustBundle.JWKS_FILE);
        Path key = dir.resolve(TrustBundle.FINGERPRINT_KEY_FILE);
        if (!Files.exists(jwks) && !Files.exists(key)) {
            return null;
        }
        if (!Files.exists(jwks) || !Files.exists(key)) {
            throw new UsageException("--out-dir " + dir + " holds only one of " + TrustBundle.JWKS_FILE + " and "
                    + TrustBundle.FINGERPRINT_KEY_FILE);
        }
        return new TrustParts(Files.readString(jwks, StandardCharsets.UTF_8), Files.readAllBytes(key));
    }

    @Override
    public void writeSigningKey(String pem, boolean replace) throws IOException {
        write(SIGNING_KEY_FILE, pem.getBytes(StandardCharsets.UTF_8), "rw-------");
    }

    @Override
    public void writeTrust(String jwks, byte[] fingerprintKey, boolean replace) throws IOException {
        write(TrustBundle.FINGERPRINT_KEY_FILE, fingerprintKey, "rw-------");
        write(TrustBundle.JWKS_FILE, jwks.getBytes(StandardCharsets.UTF_8), "rw-r--r--");
    }

    /** Written to a private temporary file first, then moved into place, so a key never sits world-readable. */
    private void write(String name, byte[] content, String mode) throws IOException {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + name, ".tmp");
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            Files.write(tmp, content);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(mode));
            Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Why writing to {@code dir} failed, naming the path that failed when it is not {@code dir} itself. */
    static String describe(Path dir, IOException e) {
        String cause = IoErrors.describe(e);
        if (e instanceof FileSystemException fse && fse.getFile() != null && !Path.of(fse.getFile()).equals(dir)) {
            return "cannot write " + fse.getFile() + ": " + cause;
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            return "not a directory";
        }
        return "cannot create or write it: " + cause;
    }

    @Override
    public String signingKeyName() {
        return dir.resolve(SIGNING_KEY_FILE).toString();
    }

    @Override
    public String trustName() {
        return dir.resolve(TrustBundle.JWKS_FILE) + " and " + dir.resolve(TrustBundle.FINGERPRINT_KEY_FILE);
    }
}
