package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.KeyFormatException;
import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.text.IoErrors;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --trust-bundle DIR} (the mounted Secret) or {@code --trust-secret NS/NAME}: exactly one. */
public final class TrustSource {
    @Option(names = "--trust-bundle", paramLabel = "DIR", required = true,
            description = "Directory holding jwks.json and fingerprint.key (the mounted trust Secret).")
    Path dir;

    @Option(names = "--trust-secret", paramLabel = "NS/NAME", required = true,
            description = "Secret holding jwks.json and fingerprint.key, read through the Kubernetes API.")
    String secret;

    public TrustBundle load(KubernetesClient client) {
        if (dir != null) {
            String jwks = readText(dir.resolve(TrustBundle.JWKS_FILE));
            byte[] key = readBytes(dir.resolve(TrustBundle.FINGERPRINT_KEY_FILE));
            return parse("--trust-bundle " + dir, jwks, key);
        }
        SecretRef ref = SecretRef.parse("--trust-secret", secret);
        Secret s = ref.read(client);
        return parse("--trust-secret " + ref, new String(ref.data(s, TrustBundle.JWKS_FILE), StandardCharsets.UTF_8),
                ref.data(s, TrustBundle.FINGERPRINT_KEY_FILE));
    }

    private static TrustBundle parse(String where, String jwks, byte[] key) {
        try {
            return TrustBundle.parse(jwks, key);
        } catch (KeyFormatException | IllegalArgumentException e) {
            throw new UsageException(where + ": " + e.getMessage(), e);
        }
    }

    private static String readText(Path file) {
        return new String(readBytes(file), StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UsageException("--trust-bundle: cannot read " + file + ": " + IoErrors.describe(e), e);
        }
    }
}
