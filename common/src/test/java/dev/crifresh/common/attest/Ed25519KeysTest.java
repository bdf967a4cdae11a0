package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class Ed25519KeysTest {
    private final KeyPair pair = Ed25519Keys.generate();

    @Test
    void signingKeyPemHoldsPrivateThenPublicBlockAndRoundTrips() throws Exception {
        String pem = Ed25519Keys.signingKeyPem(pair);
        int privateAt = pem.indexOf("-----BEGIN PRIVATE KEY-----\n");
        int publicAt = pem.indexOf("-----BEGIN PUBLIC KEY-----\n");
        assertTrue(privateAt == 0 && publicAt > privateAt, pem);
        assertTrue(pem.endsWith("-----END PUBLIC KEY-----\n"));

        SigningKey key = Ed25519Keys.readSigningKeyPem(pem);
        assertEquals(pair.getPublic(), key.publicKey());
        assertEquals(pair.getPrivate(), key.privateKey());
        assertEquals(Ed25519Keys.thumbprint(pair.getPublic()), key.kid());
    }

    @Test
    void signingKeyPemToleratesCrlfAndTextAroundTheBlocks() throws Exception {
        String pem = "generated for tests\r\n" + Ed25519Keys.signingKeyPem(pair).replace("\n", "\r\n") + "\r\n";
        assertEquals(pair.getPublic(), Ed25519Keys.readSigningKeyPem(pem).publicKey());
    }

    @Test
    void publicKeyPemRoundTrips() throws Exception {
        String pem = Ed25519Keys.publicKeyPem(pair.getPublic());
        assertTrue(pem.startsWith("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA"), pem);
        assertEquals(pair.getPublic(), Ed25519Keys.readPublicKeyPem(pem));
    }

    @Test
    void signingKeyWithHalvesOfTwoDifferentPairsIsRejected() {
        KeyPair other = Ed25519Keys.generate();
        String pem = Ed25519Keys.signingKeyPem(new KeyPair(other.getPublic(), pair.getPrivate()));
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> Ed25519Keys.readSigningKeyPem(pem));
        assertEquals("the PRIVATE KEY and PUBLIC KEY blocks are not halves of the same key pair", e.getMessage());
    }

    @Test
    void signingKeyWithoutPublicBlockIsRejected() {
        String privateOnly = Pem.write("PRIVATE KEY", pair.getPrivate().getEncoded());
        assertMessage("PEM has no PUBLIC KEY block (found: PRIVATE KEY)", privateOnly);
    }

    @Test
    void signingKeyWithTwoPrivateBlocksIsRejected() {
        String pem = Pem.write("PRIVATE KEY", pair.getPrivate().getEncoded()) + Ed25519Keys.signingKeyPem(pair);
        assertMessage("PEM holds more than one PRIVATE KEY block", pem);
    }

    @Test
    void garbageIsRejectedWithAClearMessage() {
        assertMessage("the PEM text is empty", "  \n");
        assertMessage("no PEM block (-----BEGIN ...-----) found", "this is not a key at all");
        assertMessage("PEM block PRIVATE KEY has no END line", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n");
        assertMessage("PEM block PRIVATE KEY is not valid base64",
                "-----BEGIN PRIVATE KEY-----\n!!not*base64!!\n-----END PRIVATE KEY-----\n");
        assertMessage("PEM block PRIVATE KEY is followed by END PUBLIC KEY instead of END PRIVATE KEY",
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
        assertMessage("the PRIVATE KEY block is not an Ed25519 PKCS#8 private key",
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
                        + Ed25519Keys.publicKeyPem(pair.getPublic()));
    }

    @Test
    void otherKeyTypesAreRejectedByName() throws Exception {
        KeyPair rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        String rsaPem = Pem.write("PRIVATE KEY", rsa.getPrivate().getEncoded()) + Pem.write("PUBLIC KEY", rsa.getPublic().getEncoded());
        assertMessage("the PRIVATE KEY block is not an Ed25519 PKCS#8 private key", rsaPem);

        KeyPair ed448 = KeyPairGenerator.getInstance("Ed448").generateKeyPair();
        String ed448Public = Pem.write("PUBLIC KEY", ed448.getPublic().getEncoded());
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> Ed25519Keys.readPublicKeyPem(ed448Public));
        assertEquals("the PUBLIC KEY block is not an Ed25519 SubjectPublicKeyInfo public key", e.getMessage());

        String traditional = "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n";
        assertMessage("unexpected PEM block RSA PRIVATE KEY (expected PRIVATE KEY and PUBLIC KEY)", traditional);
    }

    @Test
    void errorMessagesNeverContainKeyMaterial() {
        String privateB64 = Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded());
        KeyPair other = Ed25519Keys.generate();
        String mismatched = Ed25519Keys.signingKeyPem(new KeyPair(other.getPublic(), pair.getPrivate()));
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> Ed25519Keys.readSigningKeyPem(mismatched));
        assertFalse(e.getMessage().contains(privateB64.substring(16, 40)));
        SigningKey key = new SigningKey(pair.getPrivate(), pair.getPublic(), "kid-1");
        assertEquals("SigningKey[kid=kid-1]", key.toString());
    }

    @Test
    void publicJwkHasTheDocumentedMembersAndThumbprintKid() throws Exception {
        PublicKey key = pair.getPublic();
        String x = Base64Url.encode(Ed25519Keys.rawPublicKey(key));
        assertEquals("{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + x + "\",\"kid\":\"" + Ed25519Keys.thumbprint(key)
                + "\",\"alg\":\"EdDSA\",\"use\":\"sig\"}", Ed25519Keys.publicJwk(key));
        assertEquals(43, Ed25519Keys.thumbprint(key).length());
    }

    @Test
    void rawKeysOfTheWrongLengthOrNonCanonicalPointsAreRejected() {
        assertThrows(KeyFormatException.class, () -> Ed25519Keys.publicKeyFromRaw(new byte[31]));
        assertThrows(KeyFormatException.class, () -> Ed25519Keys.privateKeyFromRaw(new byte[33]));
        byte[] yAbovePrime = new byte[32];
        java.util.Arrays.fill(yAbovePrime, (byte) 0xff);
        yAbovePrime[31] = 0x7f; // y = 2^255 - 1 >= p
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> Ed25519Keys.publicKeyFromRaw(yAbovePrime));
        assertEquals("the Ed25519 public key is not a canonical point encoding", e.getMessage());
    }

    private static void assertMessage(String expected, String pem) {
        KeyFormatException e = assertThrows(KeyFormatException.class, () -> Ed25519Keys.readSigningKeyPem(pem));
        assertEquals(expected, e.getMessage());
    }
}
