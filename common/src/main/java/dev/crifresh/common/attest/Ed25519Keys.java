package dev.crifresh.common.attest;

import java.security.KeyPair;
import java.security.PublicKey;

/** Ed25519 key generation and PEM/JWK encodings on the plain JDK. */
public final class Ed25519Keys {
    private Ed25519Keys() {
    }

    public static KeyPair generate() {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    /** PEM with a PKCS#8 {@code PRIVATE KEY} block followed by an SPKI {@code PUBLIC KEY} block. */
    public static String signingKeyPem(KeyPair pair) {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    /** Reads {@link #signingKeyPem}; checks that the two blocks belong together (sign + verify a probe). */
    public static SigningKey readSigningKeyPem(String pem) throws KeyFormatException {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    public static String publicKeyPem(PublicKey key) {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    public static PublicKey readPublicKeyPem(String pem) throws KeyFormatException {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    /** The public JWK as JSON: {@code {"kty":"OKP","crv":"Ed25519","x":"..","kid":"..","alg":"EdDSA","use":"sig"}}. */
    public static String publicJwk(PublicKey key) {
        throw new UnsupportedOperationException("pending: issue 2");
    }

    /** RFC 7638 thumbprint of the public JWK (SHA-256, base64url without padding). */
    public static String thumbprint(PublicKey key) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
