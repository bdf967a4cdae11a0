package dev.crifresh.common.attest;

import java.util.Base64;

/** base64url without padding (RFC 7515 §2), decoded strictly: no padding, no foreign characters, canonical only. */
final class Base64Url {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private Base64Url() {
    }

    static String encode(byte[] bytes) {
        return ENCODER.encodeToString(bytes);
    }

    /**
     * @param what names the value in the error message (e.g. "the signature segment")
     * @throws IllegalArgumentException naming {@code what} when the text is not canonical base64url
     */
    static byte[] decode(String text, String what) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '=') {
                throw new IllegalArgumentException(what + " carries base64 padding '=' (base64url without padding expected)");
            }
            if (!isAlphabet(c)) {
                throw new IllegalArgumentException(what + " contains a character outside the base64url alphabet");
            }
        }
        if (text.length() % 4 == 1) {
            throw new IllegalArgumentException(what + " has an impossible base64url length");
        }
        byte[] bytes = DECODER.decode(text);
        // Rejects encodings with non-zero unused bits, so every value has exactly one accepted spelling.
        if (!ENCODER.encodeToString(bytes).equals(text)) {
            throw new IllegalArgumentException(what + " is not canonical base64url");
        }
        return bytes;
    }

    private static boolean isAlphabet(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
}
