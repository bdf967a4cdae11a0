package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crifresh.common.evidence.Verdict;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes the JWS parser and the attestation verifier (key: the RFC 8037 test key, fixed so that a
 * finding reproduces). Two modes, chosen by the first input byte:
 * <ul>
 * <li>mutation: a genuine fresh attestation, edited at fuzzed places (replace, insert, delete, cut). The
 * verifier must never call a token that differs from the signed one valid, and never throw;</li>
 * <li>signed: a fuzzed header and payload, signed with the trusted key. When the verifier calls it valid, an
 * independent reading of the raw JSON must agree: alg EdDSA/Ed25519, the trusted kid, the expected node,
 * uid and boot, a fresh verdict ({@code True} condition), within its validity.</li>
 * </ul>
 */
class AttestationVerifierFuzzTest {
    private static final Instant NOW = Claims.IAT.plusSeconds(60);
    private static final ExpectedNode NODE = new ExpectedNode("worker-1", "uid-1111", "boot-aaaa", "True");
    private static final JsonMapper PLAIN_JSON = new JsonMapper();

    private static final PrivateKey PRIVATE;
    private static final String KID;
    private static final AttestationVerifier VERIFIER;
    private static final String GENUINE;

    static {
        try {
            PRIVATE = Rfc8037Test.privateKey();
            PublicKey publicKey = Rfc8037Test.publicKey();
            KID = Ed25519Keys.thumbprint(publicKey);
            VERIFIER = new AttestationVerifier(TrustBundle.of(List.of(publicKey), TrustBundleTest.FINGERPRINT_KEY),
                    Duration.ofSeconds(60));
            GENUINE = new AttestationSigner(new SigningKey(PRIVATE, publicKey, KID)).sign(Claims.full(Verdict.FRESH));
        } catch (KeyFormatException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void verify(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            mutated(data);
        } else {
            signed(data);
        }
    }

    private static void mutated(FuzzedDataProvider data) {
        String token = GENUINE;
        int edits = data.consumeInt(1, 4);
        for (int i = 0; i < edits && data.remainingBytes() > 0; i++) {
            token = edit(token, data);
        }
        VerificationResult result = VERIFIER.verify(token, NODE, NOW);
        if (token.equals(GENUINE)) {
            assertInstanceOf(VerificationResult.Valid.class, result, () -> "the genuine token: " + result);
        } else {
            String mutatedToken = token;
            assertInstanceOf(VerificationResult.Invalid.class, result,
                    () -> "a mutated token verified: " + mutatedToken);
        }
    }

    private static String edit(String token, FuzzedDataProvider data) {
        int at = data.consumeInt(0, token.length());
        switch (data.consumeInt(0, 3)) {
            case 0:
                return at == token.length() ? token
                        : token.substring(0, at) + data.consumeChar() + token.substring(at + 1);
            case 1:
                return token.substring(0, at) + data.consumeString(8) + token.substring(at);
            case 2:
                int end = Math.min(token.length(), at + data.consumeInt(1, 8));
                return token.substring(0, at) + token.substring(end);
            default:
                return token.substring(0, at);
        }
    }

    private static void signed(FuzzedDataProvider data) {
        String header = data.consumeString(300);
        byte[] payload = data.consumeRemainingAsBytes();
        String token;
        try {
            token = Jws.sign(header, payload, PRIVATE);
        } catch (IllegalArgumentException e) {
            return; // not signable (cannot happen with a valid key): nothing to verify
        }
        VerificationResult result = VERIFIER.verify(token, NODE, NOW);
        if (!(result instanceof VerificationResult.Valid)) {
            return;
        }
        JsonNode h = PLAIN_JSON.readTree(header);
        assertTrue(List.of("EdDSA", "Ed25519").contains(h.path("alg").asString("")), "alg of a valid token");
        assertEquals(KID, h.path("kid").asString(""), "kid of a valid token");
        assertTrue(h.path("crit").isMissingNode(), "a valid token with crit");
        JsonNode claims = PLAIN_JSON.readTree(new String(payload, StandardCharsets.UTF_8));
        assertEquals(NODE.name(), claims.path("sub").asString(""), "sub of a valid token");
        assertEquals(NODE.uid(), claims.path("node_uid").asString(""), "node_uid of a valid token");
        assertEquals(NODE.bootId(), claims.path("boot_id").asString(""), "boot_id of a valid token");
        assertEquals("fresh", claims.path("verdict").asString(""), "verdict of a valid token for a True condition");
        long iat = claims.path("iat").asLong();
        long exp = claims.path("exp").asLong();
        assertTrue(iat <= NOW.getEpochSecond() + 60, "iat of a valid token");
        assertTrue(NOW.getEpochSecond() < exp + 60, "exp of a valid token");
    }
}
