package dev.crifresh.common.attest;

import java.security.PublicKey;
import java.util.Map;

/**
 * The trusted attestation keys (a JWK Set, keyed by RFC 7638 thumbprint — the JWK's own {@code kid}
 * member is checked against the thumbprint, never trusted by itself) and the fingerprint HMAC key.
 * toString never shows the HMAC key.
 */
public record TrustBundle(Map<String, PublicKey> keysByKid, byte[] fingerprintKey) {
    /** Secret/file key names of a trust bundle. */
    public static final String JWKS_FILE = "jwks.json";
    public static final String FINGERPRINT_KEY_FILE = "fingerprint.key";

    public TrustBundle {
        keysByKid = Map.copyOf(keysByKid);
        fingerprintKey = fingerprintKey.clone();
    }

    /** Parses a JWK Set JSON document; every key must be OKP/Ed25519. */
    public static TrustBundle parse(String jwksJson, byte[] fingerprintKey) throws KeyFormatException {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    /** The JWK Set JSON of {@link #keysByKid}. */
    public String jwksJson() {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    @Override
    public byte[] fingerprintKey() {
        return fingerprintKey.clone();
    }

    @Override
    public String toString() {
        return "TrustBundle[kids=" + keysByKid.keySet() + "]";
    }
}
