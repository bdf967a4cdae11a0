package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.VerificationResult.Invalid;
import dev.crifresh.common.attest.VerificationResult.Valid;
import dev.crifresh.common.evidence.Verdict;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The hostile matrix: one row per attack or boundary, each with the precise failure it must produce. */
class AttestationVerifierTest {
    static final KeyPair TRUSTED = Ed25519Keys.generate();
    static final KeyPair ROTATED = Ed25519Keys.generate();
    static final KeyPair ATTACKER = Ed25519Keys.generate();
    static final String KID = Ed25519Keys.thumbprint(TRUSTED.getPublic());
    static final String ROTATED_KID = Ed25519Keys.thumbprint(ROTATED.getPublic());
    static final String ATTACKER_KID = Ed25519Keys.thumbprint(ATTACKER.getPublic());
    static final TrustBundle TRUST = bundle();

    static final Duration SKEW = AttestationVerifier.DEFAULT_SKEW;
    static final Instant NOW = Claims.IAT.plusSeconds(60);
    static final ExpectedNode NODE = new ExpectedNode("worker-1", "uid-1111", "boot-aaaa", "True");

    static final AttestationClaims FRESH = Claims.full(Verdict.FRESH);
    static final AttestationClaims STALE = Claims.full(Verdict.STALE);

    private final AttestationVerifier verifier = new AttestationVerifier(TRUST, SKEW);

    private static TrustBundle bundle() {
        try {
            return TrustBundle.of(List.of(TRUSTED.getPublic(), ROTATED.getPublic()), TrustBundleTest.FINGERPRINT_KEY);
        } catch (KeyFormatException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sign(KeyPair pair, AttestationClaims claims) {
        SigningKey key = new SigningKey(pair.getPrivate(), pair.getPublic(), Ed25519Keys.thumbprint(pair.getPublic()));
        return new AttestationSigner(key).sign(claims);
    }

    static String header(String alg, String kid) {
        return "{\"alg\":\"" + alg + "\",\"typ\":\"crifresh-attestation+jwt\",\"kid\":\"" + kid + "\"}";
    }

    static String forge(String header, String payload, PrivateKey key) {
        return Jws.sign(header, payload.getBytes(StandardCharsets.UTF_8), key);
    }

    static String unsigned(String header, String payload) {
        return b64(header) + "." + b64(payload) + ".";
    }

    static String hs256(String header, String payload, byte[] secret) {
        try {
            String input = b64(header) + "." + b64(payload);
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return input + "." + Base64Url.encode(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String b64(String text) {
        return Base64Url.encode(text.getBytes(StandardCharsets.UTF_8));
    }

    static String[] parts(String token) {
        return token.split("\\.", -1);
    }

    static ExpectedNode status(String conditionStatus) {
        return new ExpectedNode(NODE.name(), NODE.uid(), NODE.bootId(), conditionStatus);
    }

    static Arguments row(String name, String token, ExpectedNode node, Instant now, VerificationFailure failure) {
        return Arguments.of(name, token, node, now, failure);
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one row per token the verifier must judge
    static Stream<Arguments> matrix() {
        String good = sign(TRUSTED, FRESH);
        String[] g = parts(good);
        String claims = ClaimsJson.write(FRESH);
        String jwkHeader = "{\"alg\":\"EdDSA\",\"kid\":\"%s\",\"jwk\":" + Ed25519Keys.publicJwk(ATTACKER.getPublic()) + "}";
        String staleToken = sign(TRUSTED, STALE);
        String[] s = parts(staleToken);
        Instant exp = FRESH.exp();
        Instant issuedAhead = NOW.plus(SKEW).plusSeconds(1);
        return Stream.of(
                row("baseline: trusted key, matching node", good, NODE, NOW, null),
                row("rotation: second trusted key", sign(ROTATED, FRESH), NODE, NOW, null),
                row("fully-specified alg Ed25519", forge(header("Ed25519", KID), claims, TRUSTED.getPrivate()), NODE, NOW, null),
                row("unknown verdict under condition Unknown", sign(TRUSTED, Claims.full(Verdict.UNKNOWN)), status("Unknown"), NOW, null),

                row("null token", null, NODE, NOW, VerificationFailure.MISSING),
                row("empty token", "", NODE, NOW, VerificationFailure.MISSING),
                row("blank token", "  ", NODE, NOW, VerificationFailure.MISSING),

                row("alg none with empty signature", unsigned(header("none", KID), claims), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg None (case variant) with empty signature", unsigned(header("None", KID), claims), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg none carrying the genuine signature", b64(header("none", KID)) + "." + g[1] + "." + g[2], NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("HS256 keyed with the trusted public key's raw bytes",
                        hs256(header("HS256", KID), claims, Ed25519Keys.rawPublicKey(TRUSTED.getPublic())), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("HS256 keyed with the trusted public key's PEM text",
                        hs256(header("HS256", KID), claims, Ed25519Keys.publicKeyPem(TRUSTED.getPublic()).getBytes(StandardCharsets.US_ASCII)),
                        NODE, NOW, VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("HS256 keyed with the trusted JWK's x string",
                        hs256(header("HS256", KID), claims, Base64Url.encode(Ed25519Keys.rawPublicKey(TRUSTED.getPublic()))
                                .getBytes(StandardCharsets.US_ASCII)), NODE, NOW, VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg missing", forge("{\"kid\":\"" + KID + "\"}", claims, TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg lower-case eddsa", forge(header("eddsa", KID), claims, TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg RS256", forge(header("RS256", KID), claims, TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.UNSUPPORTED_ALGORITHM),
                row("alg not a string", forge("{\"alg\":[\"EdDSA\"],\"kid\":\"" + KID + "\"}", claims, TRUSTED.getPrivate()),
                        NODE, NOW, VerificationFailure.UNSUPPORTED_ALGORITHM),

                row("unknown kid (attacker's own key)", sign(ATTACKER, FRESH), NODE, NOW, VerificationFailure.UNTRUSTED_KEY),
                row("kid missing", forge("{\"alg\":\"EdDSA\"}", claims, TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.UNTRUSTED_KEY),
                row("kid not a string", forge("{\"alg\":\"EdDSA\",\"kid\":1}", claims, TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.UNTRUSTED_KEY),
                row("embedded jwk with the attacker's key and kid", forge(String.format(jwkHeader, ATTACKER_KID), claims,
                        ATTACKER.getPrivate()), NODE, NOW, VerificationFailure.UNTRUSTED_KEY),
                row("embedded jwk with the attacker's key under the trusted kid", forge(String.format(jwkHeader, KID), claims,
                        ATTACKER.getPrivate()), NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("jku and x5u pointing at the attacker", forge("{\"alg\":\"EdDSA\",\"kid\":\"" + ATTACKER_KID
                        + "\",\"jku\":\"https://attacker.example/jwks.json\",\"x5u\":\"https://attacker.example/c.pem\"}", claims,
                        ATTACKER.getPrivate()), NODE, NOW, VerificationFailure.UNTRUSTED_KEY),
                row("x5c chain from the attacker", forge("{\"alg\":\"EdDSA\",\"kid\":\"" + ATTACKER_KID + "\",\"x5c\":[\"MIIB\"]}",
                        claims, ATTACKER.getPrivate()), NODE, NOW, VerificationFailure.UNTRUSTED_KEY),

                row("truncated: signature segment dropped", g[0] + "." + g[1], NODE, NOW, VerificationFailure.MALFORMED),
                row("truncated: cut inside the payload", good.substring(0, g[0].length() + 1 + g[1].length() / 2), NODE, NOW,
                        VerificationFailure.MALFORMED),
                row("truncated: cut inside the signature", good.substring(0, good.length() - 6), NODE, NOW,
                        VerificationFailure.BAD_SIGNATURE),
                row("truncated: empty signature with a real alg", g[0] + "." + g[1] + ".", NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("extra segment", good + "." + g[2], NODE, NOW, VerificationFailure.MALFORMED),
                row("JWE-shaped five segments", good + ".AAAA.BBBB", NODE, NOW, VerificationFailure.MALFORMED),
                row("bad base64 character in the payload", g[0] + "." + g[1].substring(0, 10) + "*" + g[1].substring(11) + "." + g[2],
                        NODE, NOW, VerificationFailure.MALFORMED),
                row("standard base64 alphabet in the signature", g[0] + "." + g[1] + ".+" + g[2].substring(1), NODE, NOW,
                        VerificationFailure.MALFORMED),
                row("base64 padding on the payload", g[0] + "." + g[1] + "==." + g[2], NODE, NOW, VerificationFailure.MALFORMED),
                row("surrounding whitespace", " " + good + "\n", NODE, NOW, VerificationFailure.MALFORMED),
                row("duplicate alg header member", forge("{\"alg\":\"none\",\"alg\":\"EdDSA\",\"kid\":\"" + KID + "\"}", claims,
                        TRUSTED.getPrivate()), NODE, NOW, VerificationFailure.MALFORMED),
                row("crit header extension", forge("{\"alg\":\"EdDSA\",\"kid\":\"" + KID + "\",\"crit\":[\"b64\"],\"b64\":false}",
                        claims, TRUSTED.getPrivate()), NODE, NOW, VerificationFailure.MALFORMED),

                row("stale token unedited (condition True)", staleToken, NODE, NOW, VerificationFailure.STATUS_MISMATCH),
                row("payload edited after signing: verdict stale -> fresh",
                        s[0] + "." + b64(ClaimsJson.write(STALE).replace("\"verdict\":\"stale\"", "\"verdict\":\"fresh\"")) + "." + s[2],
                        NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("payload swapped for another node's genuine payload",
                        g[0] + "." + parts(sign(TRUSTED, Claims.with(FRESH, "worker-2", "uid-2222", "boot-bbbb")))[1] + "." + g[2],
                        NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("header edited after signing (typ dropped)", b64("{\"alg\":\"EdDSA\",\"kid\":\"" + KID + "\"}") + "." + g[1] + "." + g[2],
                        NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("signature from an untrusted key under the trusted kid", forge(header("EdDSA", KID), claims, ATTACKER.getPrivate()),
                        NODE, NOW, VerificationFailure.BAD_SIGNATURE),
                row("signature of the rotated key under the first kid", forge(header("EdDSA", KID), claims, ROTATED.getPrivate()),
                        NODE, NOW, VerificationFailure.BAD_SIGNATURE),

                row("claims not JSON (validly signed)", forge(header("EdDSA", KID), "fresh!", TRUSTED.getPrivate()), NODE, NOW,
                        VerificationFailure.MALFORMED),
                row("claims without sub (validly signed)", forge(header("EdDSA", KID), claims.replace("\"sub\":\"worker-1\",", ""),
                        TRUSTED.getPrivate()), NODE, NOW, VerificationFailure.MALFORMED),
                row("claims version 2", sign(TRUSTED, Claims.version(FRESH, 2)), NODE, NOW, VerificationFailure.UNSUPPORTED_VERSION),
                row("sub of another node", sign(TRUSTED, Claims.with(FRESH, "worker-2", "uid-1111", "boot-aaaa")), NODE, NOW,
                        VerificationFailure.WRONG_NODE),
                row("node_uid of a deleted and re-created node", sign(TRUSTED, Claims.with(FRESH, "worker-1", "uid-0000", "boot-aaaa")),
                        NODE, NOW, VerificationFailure.WRONG_NODE_UID),
                row("boot_id of the previous boot", sign(TRUSTED, Claims.with(FRESH, "worker-1", "uid-1111", "boot-0000")), NODE, NOW,
                        VerificationFailure.WRONG_BOOT),
                row("node reports no boot id yet", sign(TRUSTED, Claims.with(FRESH, "worker-1", "uid-1111", "")),
                        new ExpectedNode("worker-1", "uid-1111", "", "True"), NOW, VerificationFailure.WRONG_BOOT),

                row("expired: exactly exp + skew", good, NODE, exp.plus(SKEW), VerificationFailure.EXPIRED),
                row("not expired: one second before exp + skew", good, NODE, exp.plus(SKEW).minusSeconds(1), null),
                row("issued in the future beyond skew", sign(TRUSTED, Claims.times(FRESH, issuedAhead, issuedAhead.plusSeconds(900))),
                        NODE, NOW, VerificationFailure.ISSUED_IN_FUTURE),
                row("issued in the future within skew", sign(TRUSTED, Claims.times(FRESH, NOW.plus(SKEW), NOW.plus(SKEW).plusSeconds(900))),
                        NODE, NOW, null),

                row("exp before iat", sign(TRUSTED, Claims.times(FRESH, NOW.minusSeconds(10), NOW.minusSeconds(20))),
                        NODE, NOW.minusSeconds(15), VerificationFailure.INVALID_LIFETIME),
                row("valid for longer than an hour", sign(TRUSTED, Claims.times(FRESH, NOW, NOW.plusSeconds(3601))),
                        NODE, NOW, VerificationFailure.INVALID_LIFETIME),
                row("valid for exactly an hour", sign(TRUSTED, Claims.times(FRESH, NOW, NOW.plusSeconds(3600))),
                        NODE, NOW, null),

                row("condition False contradicts verdict fresh", good, status("False"), NOW, VerificationFailure.STATUS_MISMATCH),
                row("condition Unknown contradicts verdict fresh", good, status("Unknown"), NOW, VerificationFailure.STATUS_MISMATCH),
                row("condition status missing", good, status(null), NOW, VerificationFailure.STATUS_MISMATCH),
                row("condition True contradicts verdict unknown", sign(TRUSTED, Claims.full(Verdict.UNKNOWN)), NODE, NOW,
                        VerificationFailure.STATUS_MISMATCH),

                row("oversized validly signed token", sign(TRUSTED, Claims.agent(FRESH, "x".repeat(AttestationVerifier.MAX_TOKEN_LENGTH))),
                        NODE, NOW, VerificationFailure.MALFORMED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void hostileMatrix(String name, String token, ExpectedNode node, Instant now, VerificationFailure failure) {
        VerificationResult result = verifier.verify(token, node, now);
        if (failure == null) {
            Valid valid = assertInstanceOf(Valid.class, result, () -> name + ": " + result);
            assertEquals(node.name(), valid.claims().sub());
            assertTrue(TRUST.keysByKid().containsKey(valid.kid()));
            return;
        }
        Invalid invalid = assertInstanceOf(Invalid.class, result, name);
        assertEquals(failure, invalid.failure(), () -> name + ": " + invalid.detail());
        assertFalse(invalid.detail().isBlank());
        if (token != null && token.length() > 20) {
            String[] segments = parts(token.strip());
            assertFalse(invalid.detail().contains(token.strip()), "detail must not carry the token");
            for (String segment : segments) {
                if (segment.length() > 20) {
                    assertFalse(invalid.detail().contains(segment), "detail must not carry a token segment");
                }
            }
        }
    }

    @Test
    void validResultCarriesTheSignedClaimsAndKid() {
        VerificationResult result = verifier.verify(sign(ROTATED, FRESH), NODE, NOW);
        Valid valid = assertInstanceOf(Valid.class, result);
        assertEquals(FRESH, valid.claims());
        assertEquals(ROTATED_KID, valid.kid());
    }

    @Test
    void signerWritesExactlyTheDocumentedHeader() {
        Jws.Parsed parsed = Jws.parse(sign(TRUSTED, FRESH));
        assertEquals("{\"alg\":\"EdDSA\",\"typ\":\"crifresh-attestation+jwt\",\"kid\":\"" + KID + "\"}", parsed.headerJson());
        assertEquals(ClaimsJson.write(FRESH), new String(parsed.payload(), StandardCharsets.UTF_8));
    }

    @Test
    void detailsAreHumanSentencesNamingBothSides() {
        assertDetail("the attestation was signed for node \"worker-2\", not \"worker-1\"",
                sign(TRUSTED, Claims.with(FRESH, "worker-2", "uid-1111", "boot-aaaa")), NODE);
        assertDetail("the attestation is about boot \"boot-0000\", but the node now runs boot \"boot-aaaa\"",
                sign(TRUSTED, Claims.with(FRESH, "worker-1", "uid-1111", "boot-0000")), NODE);
        assertDetail("the condition status is \"False\" but the signed verdict fresh means True", sign(TRUSTED, FRESH), status("False"));
        assertDetail("the attestation uses algorithm \"none\"; only EdDSA (Ed25519) is accepted",
                unsigned(header("none", KID), ClaimsJson.write(FRESH)), NODE);
        assertDetail("the attestation was signed with key \"" + ATTACKER_KID + "\", which is not in the trust bundle",
                sign(ATTACKER, FRESH), NODE);
        assertDetail("the attestation header names no algorithm (alg); only EdDSA (Ed25519) is accepted",
                forge("{\"kid\":\"" + KID + "\"}", ClaimsJson.write(FRESH), TRUSTED.getPrivate()), NODE);
        assertDetail("the node reports no boot id, so the attestation's boot \"\" cannot be matched",
                sign(TRUSTED, Claims.with(FRESH, "worker-1", "uid-1111", "")), new ExpectedNode("worker-1", "uid-1111", "", "True"));
        assertDetail("the attestation expired at 2025-05-01T10:15:00Z (accepted until 2025-05-01T10:16:00Z with 60 s skew);"
                + " now is 2025-05-01T10:16:00Z", sign(TRUSTED, FRESH), NODE, FRESH.exp().plus(SKEW));
        assertDetail("the attestation from agent \"crifresh/0.1.0\" has claims version 2; this coordinator reads claims version 1:"
                + " the agents are newer than the coordinator — upgrade the coordinator first, then the chart",
                sign(TRUSTED, Claims.version(FRESH, 2)), NODE);
    }

    @Test
    void attackerControlledTextIsQuotedPrintableAndShort() {
        String hostileKid = "evil\nkid\u001b[31m" + "k".repeat(500);
        String token = forge(header("EdDSA", "KID").replace("KID", hostileKid.replace("\n", "\\n").replace("\u001b", "\\u001b")),
                ClaimsJson.write(FRESH), ATTACKER.getPrivate());
        Invalid invalid = assertInstanceOf(Invalid.class, verifier.verify(token, NODE, NOW));
        assertEquals(VerificationFailure.UNTRUSTED_KEY, invalid.failure());
        assertFalse(invalid.detail().contains("\n") || invalid.detail().contains("\u001b"), invalid.detail());
        assertTrue(invalid.detail().length() < 200, invalid.detail());
    }

    @Test
    void tokenAtTheLengthLimitVerifiesAndOneBeyondIsRejectedBeforeDecoding() {
        String atLimit = null;
        String beyond = null;
        int overhead = sign(TRUSTED, FRESH).length();
        for (int n = (AttestationVerifier.MAX_TOKEN_LENGTH - overhead) * 3 / 4 - 8; beyond == null; n++) {
            String token = sign(TRUSTED, Claims.agent(FRESH, "x".repeat(n)));
            if (token.length() <= AttestationVerifier.MAX_TOKEN_LENGTH) {
                atLimit = token;
            } else {
                beyond = token;
            }
        }
        assertTrue(atLimit.length() >= AttestationVerifier.MAX_TOKEN_LENGTH - 2, "closest reachable length " + atLimit.length());
        assertInstanceOf(Valid.class, verifier.verify(atLimit, NODE, NOW));
        Invalid invalid = assertInstanceOf(Invalid.class, verifier.verify(beyond, NODE, NOW));
        assertEquals(VerificationFailure.MALFORMED, invalid.failure());
        assertEquals("the attestation is " + beyond.length() + " characters long, more than the 16384 accepted", invalid.detail());
    }

    @Test
    void skewIsConfigurable() {
        AttestationVerifier strict = new AttestationVerifier(TRUST, Duration.ZERO);
        String good = sign(TRUSTED, FRESH);
        assertInstanceOf(Valid.class, strict.verify(good, NODE, FRESH.exp().minusSeconds(1)));
        assertEquals(VerificationFailure.EXPIRED, ((Invalid) strict.verify(good, NODE, FRESH.exp())).failure());
        assertEquals(VerificationFailure.ISSUED_IN_FUTURE, ((Invalid) strict.verify(good, NODE, FRESH.iat().minusSeconds(1))).failure());
        assertThrows(IllegalArgumentException.class, () -> new AttestationVerifier(TRUST, Duration.ofSeconds(-1)));
    }

    @Test
    void aBundleWithoutTheSigningKeyTrustsNothingItSigned() throws Exception {
        AttestationVerifier other = new AttestationVerifier(
                TrustBundle.of(List.of(ROTATED.getPublic()), TrustBundleTest.FINGERPRINT_KEY), SKEW);
        assertEquals(VerificationFailure.UNTRUSTED_KEY, ((Invalid) other.verify(sign(TRUSTED, FRESH), NODE, NOW)).failure());
    }

    private void assertDetail(String detail, String token, ExpectedNode node) {
        assertDetail(detail, token, node, NOW);
    }

    private void assertDetail(String detail, String token, ExpectedNode node, Instant now) {
        Invalid invalid = assertInstanceOf(Invalid.class, verifier.verify(token, node, now));
        assertEquals(detail, invalid.detail());
    }
}
