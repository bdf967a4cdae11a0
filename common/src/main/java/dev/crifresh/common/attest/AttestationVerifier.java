package dev.crifresh.common.attest;

import java.time.Duration;
import java.time.Instant;

/**
 * Checks a token against DESIGN §4's list. Never throws for bad input: every problem is an
 * {@link VerificationResult.Invalid}. Only {@code EdDSA}/{@code Ed25519} is accepted, {@code kid} is
 * looked up only in the configured {@link TrustBundle}, and {@code jwk}/{@code jku}/{@code x5*}
 * headers are ignored.
 */
public final class AttestationVerifier {
    public static final Duration DEFAULT_SKEW = Duration.ofSeconds(60);

    private final TrustBundle trust;
    private final Duration skew;

    public AttestationVerifier(TrustBundle trust, Duration skew) {
        this.trust = trust;
        this.skew = skew;
    }

    /** @param token the JWS compact string, or null when the condition or token is missing */
    public VerificationResult verify(String token, ExpectedNode expected, Instant now) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
