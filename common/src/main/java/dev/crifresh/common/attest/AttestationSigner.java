package dev.crifresh.common.attest;

/**
 * Signs claims as a JWS compact token with header
 * {@code {"alg":"EdDSA","typ":"crifresh-attestation+jwt","kid":"<thumbprint>"}}.
 */
public final class AttestationSigner {
    public static final String TYP = "crifresh-attestation+jwt";

    private final SigningKey key;

    public AttestationSigner(SigningKey key) {
        this.key = key;
    }

    public String sign(AttestationClaims claims) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
