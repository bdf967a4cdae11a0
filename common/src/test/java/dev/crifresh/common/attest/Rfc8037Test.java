package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** RFC 8037 Appendix A, reproduced with the plain JDK through our own encoders. */
class Rfc8037Test {
    // A.1
    static final String D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
    static final String X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    // A.3
    static final String THUMBPRINT = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";
    // A.4
    static final String HEADER = "{\"alg\":\"EdDSA\"}";
    static final String PAYLOAD = "Example of Ed25519 signing";
    static final String JWS = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
            + "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";

    static PublicKey publicKey() throws KeyFormatException {
        return Ed25519Keys.publicKeyFromRaw(Base64Url.decode(X, "x"));
    }

    static PrivateKey privateKey() throws KeyFormatException {
        return Ed25519Keys.privateKeyFromRaw(Base64Url.decode(D, "d"));
    }

    @Test
    void a1PublicKeyDecodesAndEncodesBackToTheSameX() throws Exception {
        PublicKey key = publicKey();
        assertEquals(X, Base64Url.encode(Ed25519Keys.rawPublicKey(key)));
        // The JDK's own SPKI encoding ends with the same 32 raw bytes: our point decoding is right.
        byte[] spki = key.getEncoded();
        assertArrayEquals(Base64Url.decode(X, "x"), Arrays.copyOfRange(spki, spki.length - 32, spki.length));
    }

    @Test
    void a3Thumbprint() throws Exception {
        assertEquals(THUMBPRINT, Ed25519Keys.thumbprint(publicKey()));
    }

    @Test
    void a4SigningReproducesTheRfcTokenByteForByte() throws Exception {
        String jws = Jws.sign(HEADER, PAYLOAD.getBytes(StandardCharsets.UTF_8), privateKey());
        assertEquals(JWS, jws);
    }

    @Test
    void a5VerificationOfTheRfcToken() throws Exception {
        Jws.Parsed parsed = Jws.parse(JWS);
        assertEquals(HEADER, parsed.headerJson());
        assertEquals("EdDSA", parsed.headerString("alg"));
        assertEquals(PAYLOAD, new String(parsed.payload(), StandardCharsets.UTF_8));
        assertEquals(64, parsed.signature().length);
        assertTrue(Jws.verifyEd25519(parsed, publicKey()));
    }

    @Test
    void a5VerificationFailsForAnyFlippedSignatureBitAndForAnotherKey() throws Exception {
        Jws.Parsed parsed = Jws.parse(JWS);
        byte[] signature = parsed.signature();
        signature[10] ^= 0x01;
        Jws.Parsed flipped = new Jws.Parsed(parsed.headerJson(), parsed.header(), parsed.payload(),
                parsed.signingInput(), signature);
        assertFalse(Jws.verifyEd25519(flipped, publicKey()));
        assertFalse(Jws.verifyEd25519(parsed, Ed25519Keys.generate().getPublic()));
    }

    @Test
    void rawPublicKeyRoundTripsForBothSignsOfX() throws Exception {
        boolean sawOdd = false;
        boolean sawEven = false;
        for (int i = 0; i < 64; i++) {
            PublicKey key = Ed25519Keys.generate().getPublic();
            byte[] raw = Ed25519Keys.rawPublicKey(key);
            byte[] spki = key.getEncoded();
            assertArrayEquals(Arrays.copyOfRange(spki, spki.length - 32, spki.length), raw);
            assertEquals(key, Ed25519Keys.publicKeyFromRaw(raw));
            boolean odd = (raw[31] & 0x80) != 0;
            sawOdd |= odd;
            sawEven |= !odd;
        }
        assertTrue(sawOdd && sawEven, "64 random keys should include both x parities");
    }
}
