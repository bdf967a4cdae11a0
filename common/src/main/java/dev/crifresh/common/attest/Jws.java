package dev.crifresh.common.attest;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Low-level JWS compact serialisation (RFC 7515 §7.1) with Ed25519 (RFC 8037). It only encodes,
 * splits and checks signatures; deciding which algorithm and key to trust is the caller's job
 * (see {@link AttestationVerifier}).
 */
public final class Jws {
    private Jws() {
    }

    /**
     * A compact JWS split into its decoded parts. {@code header} holds the decoded header members
     * (JSON values as String, Number, Boolean, List, Map or null).
     */
    public record Parsed(String headerJson, Map<String, Object> header, byte[] payload, String signingInput,
            byte[] signature) {
        public Parsed {
            header = Collections.unmodifiableMap(new LinkedHashMap<>(header));
            payload = payload.clone();
            signature = signature.clone();
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }

        /** The header member as a string, or null when it is absent or not a JSON string. */
        public String headerString(String name) {
            Object value = header.get(name);
            return value instanceof String ? (String) value : null;
        }

        @Override
        public String toString() {
            return "Jws.Parsed[header=" + headerJson + ", payload=" + payload.length + " bytes]";
        }
    }

    /** Signs {@code payload} under the given protected header with an Ed25519 private key. */
    public static String sign(String headerJson, byte[] payload, PrivateKey key) {
        String signingInput = Base64Url.encode(headerJson.getBytes(StandardCharsets.UTF_8)) + "."
                + Base64Url.encode(payload);
        try {
            Signature signer = Signature.getInstance("Ed25519");
            signer.initSign(key);
            signer.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + Base64Url.encode(signer.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot sign with this key (an Ed25519 private key is required): "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Splits and decodes a compact JWS. Checks only the syntax: exactly three segments, base64url
     * without padding, and a header that is a JSON object. The signature segment may be empty (as
     * in {@code alg: none} tokens) so that the caller can reject those by algorithm.
     *
     * @throws IllegalArgumentException with a message naming what is wrong (never echoing the token)
     */
    public static Parsed parse(String compact) {
        if (compact == null) {
            throw new IllegalArgumentException("no token");
        }
        String[] segments = compact.split("\\.", -1);
        if (segments.length != 3) {
            throw new IllegalArgumentException("a compact JWS has 3 dot-separated segments, this one has "
                    + segments.length);
        }
        byte[] headerBytes = Base64Url.decode(segments[0], "the header segment");
        byte[] payload = Base64Url.decode(segments[1], "the payload segment");
        byte[] signature = Base64Url.decode(segments[2], "the signature segment");
        ObjectNode header = StrictJson.readObject(headerBytes, "the header");
        Map<String, Object> members = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> member : header.properties()) {
            members.put(member.getKey(), StrictJson.MAPPER.treeToValue(member.getValue(), Object.class));
        }
        return new Parsed(new String(headerBytes, StandardCharsets.UTF_8), members, payload,
                segments[0] + "." + segments[1], signature);
    }

    /**
     * Checks the Ed25519 signature over the signing input. False for a wrong key, a signature of
     * the wrong length or any other mismatch; never throws for bad signature bytes.
     */
    public static boolean verifyEd25519(Parsed jws, PublicKey key) {
        try {
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(key);
            verifier.update(jws.signingInput().getBytes(StandardCharsets.US_ASCII));
            return verifier.verify(jws.signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }
}
