package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrustBundleTest {
    static final byte[] FINGERPRINT_KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final PublicKey a = Ed25519Keys.generate().getPublic();
    private final PublicKey b = Ed25519Keys.generate().getPublic();

    @Test
    void parsesTheRfcPublicKeyWithoutKidUnderItsThumbprint() throws Exception {
        String jwks = "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + Rfc8037Test.X + "\"}]}";
        TrustBundle bundle = TrustBundle.parse(jwks, FINGERPRINT_KEY);
        assertEquals(Map.of(Rfc8037Test.THUMBPRINT, Rfc8037Test.publicKey()), bundle.keysByKid());
        assertArrayEquals(FINGERPRINT_KEY, bundle.fingerprintKey());
    }

    @Test
    void jwksJsonRoundTripsSortedByKid() throws Exception {
        TrustBundle bundle = TrustBundle.of(List.of(a, b), FINGERPRINT_KEY);
        String json = bundle.jwksJson();
        List<String> kids = new java.util.ArrayList<>(bundle.keysByKid().keySet());
        java.util.Collections.sort(kids);
        assertTrue(json.indexOf(kids.get(0)) < json.indexOf(kids.get(1)), json);
        assertTrue(json.startsWith("{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\""), json);
        assertTrue(json.contains("\"alg\":\"EdDSA\",\"use\":\"sig\"}"), json);
        TrustBundle again = TrustBundle.parse(json, FINGERPRINT_KEY);
        assertEquals(bundle.keysByKid(), again.keysByKid());
        assertEquals(json, again.jwksJson());
    }

    @Test
    void kidThatIsNotTheThumbprintIsRejected() {
        String x = Base64Url.encode(Ed25519Keys.rawPublicKey(a));
        String jwks = "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + x + "\",\"kid\":\""
                + Ed25519Keys.thumbprint(b) + "\"}]}";
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> TrustBundle.parse(jwks, FINGERPRINT_KEY));
        assertEquals("jwks.json key #1 has a \"kid\" that is not its RFC 7638 thumbprint " + Ed25519Keys.thumbprint(a),
                e.getMessage());
    }

    @Test
    void shortFingerprintKeyIsRejected() {
        String jwks = "{\"keys\":[" + Ed25519Keys.publicJwk(a) + "]}";
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> TrustBundle.parse(jwks, new byte[31]));
        assertEquals("fingerprint.key holds 31 bytes; it must hold at least 32 random bytes", e.getMessage());
        assertThrows(KeyFormatException.class, () -> TrustBundle.parse(jwks, null));
        assertThrows(KeyFormatException.class, () -> TrustBundle.of(List.of(a), new byte[0]));
    }

    @Test
    void malformedSetsAndKeysAreRejectedByName() {
        String x = Base64Url.encode(Ed25519Keys.rawPublicKey(a));
        assertRejected("jwks.json is empty", "");
        assertRejected("jwks.json is not a JSON object", "[]");
        assertRejected("jwks.json is not a JWK Set: it has no \"keys\" array", "{\"key\":[]}");
        assertRejected("jwks.json holds no keys, so no attestation could ever be trusted", "{\"keys\":[]}");
        assertRejected("jwks.json key #1 is not a JSON object", "{\"keys\":[\"" + x + "\"]}");
        assertRejected("jwks.json key #1 has kty \"RSA\", only kty OKP is accepted",
                "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}");
        assertRejected("jwks.json key #1 has crv \"X25519\", only crv Ed25519 is accepted",
                "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"X25519\",\"x\":\"" + x + "\"}]}");
        assertRejected("jwks.json key #1 has no \"x\" (the public key)", "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\"}]}");
        assertRejected("jwks.json key #1: an Ed25519 public key is 32 bytes, this one is 31",
                "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + Base64Url.encode(new byte[31]) + "\"}]}");
        assertRejected("jwks.json key #1: \"x\" carries base64 padding '=' (base64url without padding expected)",
                "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + x + "=\"}]}");
        assertRejected("jwks.json key #2 contains a private key (member \"d\"); a trust bundle holds public keys only",
                "{\"keys\":[" + Ed25519Keys.publicJwk(b) + ",{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + Rfc8037Test.X
                        + "\",\"d\":\"" + Rfc8037Test.D + "\"}]}");
        assertRejected("jwks.json key #1 has an \"alg\" other than EdDSA/Ed25519",
                "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + x + "\",\"alg\":\"HS256\"}]}");
    }

    @Test
    void toStringShowsKidsButNeverTheFingerprintKey() throws Exception {
        TrustBundle bundle = TrustBundle.of(List.of(a), FINGERPRINT_KEY);
        assertEquals("TrustBundle[kids=[" + Ed25519Keys.thumbprint(a) + "]]", bundle.toString());
        assertFalse(bundle.toString().contains("0123456789abcdef"));
    }

    private static void assertRejected(String message, String jwks) {
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> TrustBundle.parse(jwks, FINGERPRINT_KEY));
        assertEquals(message, e.getMessage());
    }
}
