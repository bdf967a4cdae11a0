package dev.crifresh.common.attest;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * Checks a token against the list in docs/design.md, "The attestation and its verifier". Never throws for
 * bad input: every problem is an {@link VerificationResult.Invalid}. Only {@code EdDSA}/{@code Ed25519} is
 * accepted, {@code kid} is looked up only in the configured {@link TrustBundle}, and
 * {@code jwk}/{@code jku}/{@code x5*} headers are ignored.
 */
public final class AttestationVerifier {
    public static final Duration DEFAULT_SKEW = Duration.ofSeconds(60);
    /** Longer tokens are rejected before any decoding. */
    public static final int MAX_TOKEN_LENGTH = 16 * 1024;

    private static final Set<String> ACCEPTED_ALGORITHMS = Set.of("EdDSA", "Ed25519");

    private final TrustBundle trust;
    private final Duration skew;
    private final Duration maxValidity;
    private final ClaimsVersions versions;

    /** With the default validity limit, reading the supported claims versions. */
    public AttestationVerifier(TrustBundle trust, Duration skew) {
        this(trust, skew, AttestationPolicy.DEFAULT_MAX_VALIDITY, ClaimsVersions.SUPPORTED);
    }

    /**
     * @param maxValidity the longest {@code exp − iat} accepted ({@link AttestationPolicy#maxValidity()})
     * @param versions    the claims versions read; anything else is {@link VerificationFailure#UNSUPPORTED_VERSION}
     */
    public AttestationVerifier(TrustBundle trust, Duration skew, Duration maxValidity, ClaimsVersions versions) {
        this.versions = Objects.requireNonNull(versions, "versions");
        this.trust = Objects.requireNonNull(trust, "trust");
        this.skew = Objects.requireNonNull(skew, "skew");
        this.maxValidity = Objects.requireNonNull(maxValidity, "maxValidity");
        if (skew.isNegative()) {
            throw new IllegalArgumentException("clock skew must not be negative: " + skew);
        }
    }

    /**
     * @param token    the JWS compact string, or null when the condition or token is missing
     * @param expected the Node the token must be about (not null)
     * @param now      the verifier's wall clock (not null)
     */
    public VerificationResult verify(String token, ExpectedNode expected, Instant now) {
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(now, "now");
        try {
            return check(token, expected, now);
        } catch (RuntimeException e) {
            return invalid(VerificationFailure.MALFORMED,
                    "the attestation could not be checked (" + e.getClass().getSimpleName() + ")");
        }
    }

    private VerificationResult check(String token, ExpectedNode expected, Instant now) {
        if (token == null || token.isBlank()) {
            return invalid(VerificationFailure.MISSING, "there is no attestation");
        }
        if (token.length() > MAX_TOKEN_LENGTH) {
            return invalid(VerificationFailure.MALFORMED, "the attestation is " + token.length()
                    + " characters long, more than the " + MAX_TOKEN_LENGTH + " accepted");
        }
        Jws.Parsed jws;
        try {
            jws = Jws.parse(token);
        } catch (IllegalArgumentException e) {
            return invalid(VerificationFailure.MALFORMED, "the attestation is not a compact JWS: " + e.getMessage());
        }
        if (jws.header().containsKey("crit")) {
            return invalid(VerificationFailure.MALFORMED,
                    "the attestation header lists critical extensions (crit), none of which this verifier supports");
        }
        String alg = jws.headerString("alg");
        if (alg == null) {
            return invalid(VerificationFailure.UNSUPPORTED_ALGORITHM,
                    "the attestation header names no algorithm (alg); only EdDSA (Ed25519) is accepted");
        }
        if (!ACCEPTED_ALGORITHMS.contains(alg)) {
            return invalid(VerificationFailure.UNSUPPORTED_ALGORITHM, "the attestation uses algorithm "
                    + Sentences.quote(alg) + "; only EdDSA (Ed25519) is accepted");
        }
        String kid = jws.headerString("kid");
        if (kid == null) {
            return invalid(VerificationFailure.UNTRUSTED_KEY, "the attestation names no key id (kid)");
        }
        PublicKey key = trust.keysByKid().get(kid);
        if (key == null) {
            return invalid(VerificationFailure.UNTRUSTED_KEY, "the attestation was signed with key "
                    + Sentences.quote(kid) + ", which is not in the trust bundle");
        }
        if (!Jws.verifyEd25519(jws, key)) {
            return invalid(VerificationFailure.BAD_SIGNATURE, "the attestation's signature does not verify with trusted key "
                    + Sentences.quote(kid));
        }
        AttestationClaims claims;
        try {
            ObjectNode json = ClaimsJson.parse(new String(jws.payload(), StandardCharsets.UTF_8));
            ClaimsJson.Stamp stamp = ClaimsJson.stamp(json);
            if (!versions.accepts(stamp.v())) {
                return invalid(VerificationFailure.UNSUPPORTED_VERSION, versions.refusal(stamp.v(), stamp.agent()));
            }
            claims = ClaimsJson.readVersion1(json);
        } catch (IllegalArgumentException e) {
            return invalid(VerificationFailure.MALFORMED, "the attestation's claims are unusable: " + e.getMessage());
        }
        return checkClaims(claims, kid, expected, now);
    }

    private VerificationResult checkClaims(AttestationClaims claims, String kid, ExpectedNode expected, Instant now) {
        if (!matches(expected.name(), claims.sub())) {
            return invalid(VerificationFailure.WRONG_NODE, "the attestation was signed for node "
                    + Sentences.quote(claims.sub()) + ", not " + Sentences.quote(expected.name()));
        }
        if (!matches(expected.uid(), claims.nodeUid())) {
            return invalid(VerificationFailure.WRONG_NODE_UID, "the attestation was signed for node UID "
                    + Sentences.quote(claims.nodeUid()) + ", but node " + Sentences.quote(expected.name())
                    + " has UID " + Sentences.quote(expected.uid()) + " (the node was re-created)");
        }
        if (isBlank(expected.bootId())) {
            return invalid(VerificationFailure.WRONG_BOOT, "the node reports no boot id, so the attestation's boot "
                    + Sentences.quote(claims.bootId()) + " cannot be matched");
        }
        if (!matches(expected.bootId(), claims.bootId())) {
            return invalid(VerificationFailure.WRONG_BOOT, "the attestation is about boot "
                    + Sentences.quote(claims.bootId()) + ", but the node now runs boot " + Sentences.quote(expected.bootId()));
        }
        if (claims.exp().isBefore(claims.iat())) {
            return invalid(VerificationFailure.INVALID_LIFETIME, "the attestation expires at " + claims.exp()
                    + ", before it was issued (" + claims.iat() + ")");
        }
        if (Duration.between(claims.iat(), claims.exp()).compareTo(maxValidity) > 0) {
            return invalid(VerificationFailure.INVALID_LIFETIME, "the attestation is valid for "
                    + Duration.between(claims.iat(), claims.exp()).toSeconds() + " s, longer than the "
                    + maxValidity.toSeconds() + " s accepted");
        }
        if (claims.iat().isAfter(now.plus(skew))) {
            return invalid(VerificationFailure.ISSUED_IN_FUTURE, "the attestation was issued at " + claims.iat()
                    + ", more than " + skew.toSeconds() + " s after now (" + now + ")");
        }
        if (!now.isBefore(claims.exp().plus(skew))) {
            return invalid(VerificationFailure.EXPIRED, "the attestation expired at " + claims.exp()
                    + " (accepted until " + claims.exp().plus(skew) + " with " + skew.toSeconds() + " s skew); now is " + now);
        }
        String status = claims.verdict().conditionStatus();
        if (expected.conditionStatus() == null) {
            return invalid(VerificationFailure.STATUS_MISMATCH, "the condition has no status, but the signed verdict "
                    + claims.verdict().wire() + " means " + status);
        }
        if (!status.equals(expected.conditionStatus())) {
            return invalid(VerificationFailure.STATUS_MISMATCH, "the condition status is "
                    + Sentences.quote(expected.conditionStatus()) + " but the signed verdict "
                    + claims.verdict().wire() + " means " + status);
        }
        return new VerificationResult.Valid(claims, kid);
    }

    /** An expected value that is absent or blank never matches: an unknown node is not a fresh node. */
    private static boolean matches(String expected, String actual) {
        return !isBlank(expected) && expected.equals(actual);
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    private static VerificationResult invalid(VerificationFailure failure, String detail) {
        return new VerificationResult.Invalid(failure, detail);
    }
}
