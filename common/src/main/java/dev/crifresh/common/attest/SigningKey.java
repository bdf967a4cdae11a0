package dev.crifresh.common.attest;

import java.security.PrivateKey;
import java.security.PublicKey;

/**
 * An Ed25519 private key with its public key and {@code kid} (the RFC 7638 thumbprint of the public
 * JWK). The JDK cannot derive an Ed25519 public key from a private one, so the signing-key PEM file
 * holds both blocks: {@code PRIVATE KEY} (PKCS#8) then {@code PUBLIC KEY} (SPKI). toString never
 * shows the private key.
 */
public record SigningKey(PrivateKey privateKey, PublicKey publicKey, String kid) {
    @Override
    public String toString() {
        return "SigningKey[kid=" + kid + "]";
    }
}
