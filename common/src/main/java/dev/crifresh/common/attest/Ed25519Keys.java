package dev.crifresh.common.attest;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.EdECKey;
import java.security.interfaces.EdECPublicKey;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** Ed25519 key generation and PEM/JWK encodings on the plain JDK. */
public final class Ed25519Keys {
    static final String ALGORITHM = "Ed25519";
    static final String PRIVATE_KEY = "PRIVATE KEY";
    static final String PUBLIC_KEY = "PUBLIC KEY";
    /** Raw Ed25519 key length (RFC 8032): the public point encoding and the private seed. */
    static final int RAW_LENGTH = 32;

    private static final BigInteger FIELD_PRIME = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
    private static final byte[] PROBE = "crifresh signing-key pair check".getBytes(StandardCharsets.US_ASCII);

    private Ed25519Keys() {
    }

    public static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no Ed25519 support", e);
        }
    }

    /** PEM with a PKCS#8 {@code PRIVATE KEY} block followed by an SPKI {@code PUBLIC KEY} block. */
    public static String signingKeyPem(KeyPair pair) {
        requireEd25519(pair.getPrivate());
        requireEd25519(pair.getPublic());
        return Pem.write(PRIVATE_KEY, pair.getPrivate().getEncoded()) + Pem.write(PUBLIC_KEY, pair.getPublic().getEncoded());
    }

    /** Reads {@link #signingKeyPem}; checks that the two blocks belong together (sign + verify a probe). */
    public static SigningKey readSigningKeyPem(String pem) throws KeyFormatException {
        List<Pem.Block> blocks = Pem.read(pem);
        Pem.onlyLabels(blocks, List.of(PRIVATE_KEY, PUBLIC_KEY));
        PrivateKey privateKey = privateKeyFromPkcs8(Pem.single(blocks, PRIVATE_KEY));
        PublicKey publicKey = publicKeyFromSpki(Pem.single(blocks, PUBLIC_KEY));
        if (!belongTogether(privateKey, publicKey)) {
            throw new KeyFormatException("the PRIVATE KEY and PUBLIC KEY blocks are not halves of the same key pair");
        }
        return new SigningKey(privateKey, publicKey, thumbprint(publicKey));
    }

    public static String publicKeyPem(PublicKey key) {
        requireEd25519(key);
        return Pem.write(PUBLIC_KEY, key.getEncoded());
    }

    public static PublicKey readPublicKeyPem(String pem) throws KeyFormatException {
        List<Pem.Block> blocks = Pem.read(pem);
        Pem.onlyLabels(blocks, List.of(PUBLIC_KEY));
        return publicKeyFromSpki(Pem.single(blocks, PUBLIC_KEY));
    }

    /** The public JWK as JSON: {@code {"kty":"OKP","crv":"Ed25519","x":"..","kid":"..","alg":"EdDSA","use":"sig"}}. */
    public static String publicJwk(PublicKey key) {
        return StrictJson.write(publicJwkNode(key));
    }

    /** RFC 7638 thumbprint of the public JWK (SHA-256, base64url without padding). */
    public static String thumbprint(PublicKey key) {
        // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
        String canonical = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"" + Base64Url.encode(rawPublicKey(key)) + "\"}";
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return Base64Url.encode(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }

    /** The 32-byte RFC 8032 encoding of the public point (the JWK {@code x}). */
    public static byte[] rawPublicKey(PublicKey key) {
        requireEd25519(key);
        EdECPoint point = ((EdECPublicKey) key).getPoint();
        byte[] bigEndian = point.getY().toByteArray();
        byte[] raw = new byte[RAW_LENGTH];
        // y < 2^255, so BigInteger's big-endian form fits in 32 bytes plus at most a sign byte.
        for (int i = 0; i < RAW_LENGTH && i < bigEndian.length; i++) {
            raw[i] = bigEndian[bigEndian.length - 1 - i];
        }
        if (point.isXOdd()) {
            raw[RAW_LENGTH - 1] |= (byte) 0x80;
        }
        return raw;
    }

    /** The public key for a raw 32-byte RFC 8032 point encoding (the JWK {@code x}). */
    public static PublicKey publicKeyFromRaw(byte[] x) throws KeyFormatException {
        if (x == null || x.length != RAW_LENGTH) {
            throw new KeyFormatException("an Ed25519 public key is " + RAW_LENGTH + " bytes, this one is "
                    + (x == null ? 0 : x.length));
        }
        boolean xOdd = (x[RAW_LENGTH - 1] & 0x80) != 0;
        byte[] bigEndian = new byte[RAW_LENGTH];
        for (int i = 0; i < RAW_LENGTH; i++) {
            bigEndian[i] = x[RAW_LENGTH - 1 - i];
        }
        bigEndian[0] &= 0x7f;
        BigInteger y = new BigInteger(1, bigEndian);
        if (y.compareTo(FIELD_PRIME) >= 0) {
            throw new KeyFormatException("the Ed25519 public key is not a canonical point encoding");
        }
        try {
            return KeyFactory.getInstance(ALGORITHM)
                    .generatePublic(new EdECPublicKeySpec(NamedParameterSpec.ED25519, new EdECPoint(xOdd, y)));
        } catch (GeneralSecurityException e) {
            throw new KeyFormatException("the bytes are not an Ed25519 public key", e);
        }
    }

    /** The private key for a raw 32-byte RFC 8032 seed (the JWK {@code d}). */
    public static PrivateKey privateKeyFromRaw(byte[] d) throws KeyFormatException {
        if (d == null || d.length != RAW_LENGTH) {
            throw new KeyFormatException("an Ed25519 private key is " + RAW_LENGTH + " bytes, this one is "
                    + (d == null ? 0 : d.length));
        }
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, d));
        } catch (GeneralSecurityException e) {
            throw new KeyFormatException("the bytes are not an Ed25519 private key", e);
        }
    }

    static ObjectNode publicJwkNode(PublicKey key) {
        ObjectNode jwk = StrictJson.MAPPER.createObjectNode();
        jwk.put("kty", "OKP");
        jwk.put("crv", ALGORITHM);
        jwk.put("x", Base64Url.encode(rawPublicKey(key)));
        jwk.put("kid", thumbprint(key));
        jwk.put("alg", "EdDSA");
        jwk.put("use", "sig");
        return jwk;
    }

    static PrivateKey privateKeyFromPkcs8(byte[] der) throws KeyFormatException {
        PrivateKey key;
        try {
            key = KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new KeyFormatException("the PRIVATE KEY block is not an Ed25519 PKCS#8 private key");
        }
        if (!isEd25519(key)) {
            throw new KeyFormatException("the PRIVATE KEY block is not an Ed25519 key");
        }
        return key;
    }

    static PublicKey publicKeyFromSpki(byte[] der) throws KeyFormatException {
        PublicKey key;
        try {
            key = KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new KeyFormatException("the PUBLIC KEY block is not an Ed25519 SubjectPublicKeyInfo public key");
        }
        if (!isEd25519(key)) {
            throw new KeyFormatException("the PUBLIC KEY block is not an Ed25519 key");
        }
        return key;
    }

    private static boolean belongTogether(PrivateKey privateKey, PublicKey publicKey) {
        try {
            Signature signer = Signature.getInstance(ALGORITHM);
            signer.initSign(privateKey);
            signer.update(PROBE);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(ALGORITHM);
            verifier.initVerify(publicKey);
            verifier.update(PROBE);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static boolean isEd25519(Key key) {
        return key instanceof EdECKey && ALGORITHM.equalsIgnoreCase(((EdECKey) key).getParams().getName());
    }

    private static void requireEd25519(Key key) {
        if (!isEd25519(key)) {
            throw new IllegalArgumentException("not an Ed25519 key: "
                    + (key == null ? "null" : key.getAlgorithm()));
        }
    }
}
