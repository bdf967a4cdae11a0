package dev.crifresh.coordinator.cli;

import java.io.IOException;

/** Where {@code keys init} keeps the signing key and the trust bundle: Secrets or files. */
interface KeyStore {
    /** The signing-key PEM, or null when absent. */
    String readSigningKey() throws IOException;

    /** The trust bundle's parts, or null when absent. */
    TrustParts readTrust() throws IOException;

    void writeSigningKey(String pem, boolean replace) throws IOException;

    void writeTrust(String jwks, byte[] fingerprintKey, boolean replace) throws IOException;

    String signingKeyName();

    String trustName();

    record TrustParts(String jwks, byte[] fingerprintKey) {
    }
}
