package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.VerificationResult.Invalid;
import dev.crifresh.common.attest.VerificationResult.Valid;
import dev.crifresh.common.evidence.Verdict;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The version-skew policy (docs/install.md "Upgrading") on real signed tokens, both directions: a coordinator reads its
 * own claims version and the one before; an agent newer than the coordinator is unknown with a reason naming both
 * versions, the agent's release and the fix. Stands on the operators' side of the threat model (their upgrade order).
 */
class VersionSkewTest {
    private static final AttestationClaims V1 = Claims.agent(Claims.full(Verdict.FRESH), "crifresh-agent/0.4.0");

    /** This release: claims version N = 1, no N−1 yet. */
    private final AttestationVerifier current = new AttestationVerifier(AttestationVerifierTest.TRUST, AttestationVerifier.DEFAULT_SKEW);
    /** The next release's coordinator, which raised the claims version to 2 and still reads 1. */
    private final AttestationVerifier next = new AttestationVerifier(AttestationVerifierTest.TRUST, AttestationVerifier.DEFAULT_SKEW,
            AttestationPolicy.DEFAULT_MAX_VALIDITY, new ClaimsVersions(1, 2));
    /** A release two versions on, which reads 2 and 3 and no longer 1. */
    private final AttestationVerifier later = new AttestationVerifier(AttestationVerifierTest.TRUST, AttestationVerifier.DEFAULT_SKEW,
            AttestationPolicy.DEFAULT_MAX_VALIDITY, new ClaimsVersions(2, 3));

    @Test
    void thisReleaseReadsItsOwnVersionOnly() {
        assertEquals(new ClaimsVersions(1, 1), ClaimsVersions.SUPPORTED);
        assertInstanceOf(Valid.class, verify(current, AttestationVerifierTest.sign(AttestationVerifierTest.TRUSTED, V1)));
    }

    @Test
    void oldAgentNewCoordinatorIsRead() {
        Valid valid = assertInstanceOf(Valid.class, verify(next, AttestationVerifierTest.sign(AttestationVerifierTest.TRUSTED, V1)));
        assertEquals(1, valid.claims().v());
        assertEquals(Verdict.FRESH, valid.claims().verdict());
    }

    @Test
    void newAgentOldCoordinatorIsUnknownNamingBothVersionsAndTheFix() {
        String token = AttestationVerifierTest.sign(AttestationVerifierTest.TRUSTED,
                Claims.agent(Claims.version(V1, 2), "crifresh-agent/0.5.0"));
        Invalid invalid = assertInstanceOf(Invalid.class, verify(current, token));
        assertEquals(VerificationFailure.UNSUPPORTED_VERSION, invalid.failure());
        assertEquals("the attestation from agent \"crifresh-agent/0.5.0\" has claims version 2; this coordinator reads claims"
                + " version 1: the agents are newer than the coordinator — upgrade the coordinator first, then the chart",
                invalid.detail());
    }

    @Test
    void newerClaimsAreRefusedByVersionEvenWhenTheirMembersAreUnknownToThisReader() {
        String claims = ClaimsJson.write(Claims.version(V1, 2)).replace("\"verdict\":\"fresh\"", "\"verdict\":\"fresh-v2\"");
        String token = AttestationVerifierTest.forge(AttestationVerifierTest.header("EdDSA", AttestationVerifierTest.KID), claims,
                AttestationVerifierTest.TRUSTED.getPrivate());
        Invalid invalid = assertInstanceOf(Invalid.class, verify(current, token));
        assertEquals(VerificationFailure.UNSUPPORTED_VERSION, invalid.failure());
        assertTrue(invalid.detail().contains("claims version 2"), invalid.detail());
    }

    @Test
    void agentsTwoVersionsBehindAreUnknownNamingTheChartUpgrade() {
        Invalid invalid = assertInstanceOf(Invalid.class, verify(later, AttestationVerifierTest.sign(AttestationVerifierTest.TRUSTED, V1)));
        assertEquals(VerificationFailure.UNSUPPORTED_VERSION, invalid.failure());
        assertEquals("the attestation from agent \"crifresh-agent/0.4.0\" has claims version 1; this coordinator reads claims"
                + " versions 2–3: the agents are older than this coordinator supports — upgrade the chart (agents) to a"
                + " release that writes version 2–3, or run the coordinator release that matches them", invalid.detail());
    }

    @Test
    void aRefusalWithoutAnAgentReleaseStillNamesBothVersions() {
        Invalid invalid = assertInstanceOf(Invalid.class, verify(current,
                AttestationVerifierTest.sign(AttestationVerifierTest.TRUSTED, Claims.agent(Claims.version(V1, 7), null))));
        assertTrue(invalid.detail().startsWith("the attestation has claims version 7; this coordinator reads claims version 1"),
                invalid.detail());
    }

    @Test
    void anUnsignedVersionIsNeverReadAsSupported() {
        String claims = ClaimsJson.write(Claims.version(V1, 2));
        String token = AttestationVerifierTest.forge(AttestationVerifierTest.header("EdDSA", AttestationVerifierTest.KID), claims,
                AttestationVerifierTest.ATTACKER.getPrivate());
        assertEquals(VerificationFailure.BAD_SIGNATURE, assertInstanceOf(Invalid.class, verify(next, token)).failure());
        assertEquals("claims: \"v\" must be an integer", assertThrows(IllegalArgumentException.class,
                () -> ClaimsJson.stamp(ClaimsJson.parse(new String("{\"v\":\"2\"}".getBytes(StandardCharsets.UTF_8),
                        StandardCharsets.UTF_8)))).getMessage());
    }

    @Test
    void aRangeIsOrdered() {
        assertThrows(IllegalArgumentException.class, () -> new ClaimsVersions(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ClaimsVersions(2, 1));
    }

    private static VerificationResult verify(AttestationVerifier verifier, String token) {
        return verifier.verify(token, AttestationVerifierTest.NODE, AttestationVerifierTest.NOW);
    }
}
