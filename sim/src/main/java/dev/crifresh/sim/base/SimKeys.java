package dev.crifresh.sim.base;

import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.attest.TrustBundle;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The simulation's key material, made fresh for every run as the chart's key Job would: the agents'
 * Ed25519 signing key, a 32-byte credential-fingerprint HMAC key, and the trust bundle holding the
 * public key and the HMAC key. Never printed.
 */
public record SimKeys(SigningKey agentKey, byte[] fingerprintKey, TrustBundle trust) {

    public static SimKeys generate() {
        SigningKey key = signingKey(Ed25519Keys.generate());
        byte[] fingerprintKey = new byte[32];
        new SecureRandom().nextBytes(fingerprintKey);
        return new SimKeys(key, fingerprintKey, new TrustBundle(Map.of(key.kid(), key.publicKey()), fingerprintKey));
    }

    /** A key pair as a signing key; an untrusted one of these is what a forger signs with. */
    public static SigningKey signingKey(KeyPair pair) {
        return new SigningKey(pair.getPrivate(), pair.getPublic(), Ed25519Keys.thumbprint(pair.getPublic()));
    }

    @Override
    public byte[] fingerprintKey() {
        return fingerprintKey.clone();
    }

    @Override
    public String toString() {
        return "SimKeys[kid=" + agentKey.kid() + "]";
    }
}
