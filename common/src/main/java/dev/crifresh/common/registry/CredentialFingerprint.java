package dev.crifresh.common.registry;

/**
 * {@code HMAC-SHA256(key, "crifresh-cred-v1\0" host \0 username \0 password \0 identitytoken)},
 * base64url, first 22 characters. The host is normalised first ({@link RegistryHosts#normalise}).
 */
public final class CredentialFingerprint {
    private CredentialFingerprint() {
    }

    public static String of(byte[] key, RegistryAuth auth) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
