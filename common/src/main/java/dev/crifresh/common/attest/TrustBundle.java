package dev.crifresh.common.attest;

import dev.crifresh.common.registry.CredentialFingerprint;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The trusted attestation keys (a JWK Set, keyed by RFC 7638 thumbprint — the JWK's own {@code kid}
 * member is checked against the thumbprint, never trusted by itself) and the fingerprint HMAC key.
 * toString never shows the HMAC key.
 */
public record TrustBundle(Map<String, PublicKey> keysByKid, byte[] fingerprintKey) {
    /** Secret/file key names of a trust bundle. */
    public static final String JWKS_FILE = "jwks.json";
    public static final String FINGERPRINT_KEY_FILE = "fingerprint.key";
    /** The fingerprint HMAC key must hold at least this many (random) bytes. */
    public static final int MIN_FINGERPRINT_KEY_BYTES = CredentialFingerprint.MIN_KEY_BYTES;

    public TrustBundle {
        keysByKid = Map.copyOf(keysByKid);
        fingerprintKey = fingerprintKey.clone();
    }

    /**
     * Parses a JWK Set JSON document; every key must be OKP/Ed25519 with {@code x} and no private
     * member. Keys are indexed by their computed thumbprint; a JWK {@code kid} that differs from it
     * is an error. The fingerprint key must hold at least {@value #MIN_FINGERPRINT_KEY_BYTES} bytes.
     */
    public static TrustBundle parse(String jwksJson, byte[] fingerprintKey) throws KeyFormatException {
        requireFingerprintKey(fingerprintKey);
        if (jwksJson == null || jwksJson.isBlank()) {
            throw new KeyFormatException(JWKS_FILE + " is empty");
        }
        ObjectNode set;
        try {
            set = StrictJson.readObject(jwksJson.getBytes(StandardCharsets.UTF_8), JWKS_FILE);
        } catch (IllegalArgumentException e) {
            throw new KeyFormatException(e.getMessage());
        }
        JsonNode keys = set.get("keys");
        if (keys == null || !keys.isArray()) {
            throw new KeyFormatException(JWKS_FILE + " is not a JWK Set: it has no \"keys\" array");
        }
        if (keys.isEmpty()) {
            throw new KeyFormatException(JWKS_FILE + " holds no keys, so no attestation could ever be trusted");
        }
        Map<String, PublicKey> byKid = new TreeMap<>();
        for (int i = 0; i < keys.size(); i++) {
            PublicKey key = readJwk(keys.get(i), JWKS_FILE + " key #" + (i + 1));
            byKid.put(Ed25519Keys.thumbprint(key), key);
        }
        return new TrustBundle(byKid, fingerprintKey);
    }

    /** A bundle of the given public keys, each under its RFC 7638 thumbprint. */
    public static TrustBundle of(Collection<PublicKey> keys, byte[] fingerprintKey) throws KeyFormatException {
        requireFingerprintKey(fingerprintKey);
        Map<String, PublicKey> byKid = new TreeMap<>();
        for (PublicKey key : keys) {
            byKid.put(Ed25519Keys.thumbprint(key), key);
        }
        return new TrustBundle(byKid, fingerprintKey);
    }

    /** The JWK Set JSON of {@link #keysByKid}, keys sorted by kid. */
    public String jwksJson() {
        ObjectNode set = StrictJson.MAPPER.createObjectNode();
        ArrayNode keys = set.putArray("keys");
        for (PublicKey key : new TreeMap<>(keysByKid).values()) {
            keys.add(Ed25519Keys.publicJwkNode(key));
        }
        return StrictJson.write(set);
    }

    private static PublicKey readJwk(JsonNode jwk, String where) throws KeyFormatException {
        if (jwk == null || !jwk.isObject()) {
            throw new KeyFormatException(where + " is not a JSON object");
        }
        requireMember(jwk, "kty", "OKP", where);
        requireMember(jwk, "crv", "Ed25519", where);
        if (jwk.has("d")) {
            throw new KeyFormatException(where + " contains a private key (member \"d\"); a trust bundle holds public keys only");
        }
        JsonNode x = jwk.get("x");
        if (x == null || !x.isString()) {
            throw new KeyFormatException(where + " has no \"x\" (the public key)");
        }
        PublicKey key;
        try {
            key = Ed25519Keys.publicKeyFromRaw(Base64Url.decode(x.stringValue(), "\"x\""));
        } catch (IllegalArgumentException | KeyFormatException e) {
            throw new KeyFormatException(where + ": " + e.getMessage());
        }
        String thumbprint = Ed25519Keys.thumbprint(key);
        JsonNode kid = jwk.get("kid");
        if (kid != null && !(kid.isString() && kid.stringValue().equals(thumbprint))) {
            throw new KeyFormatException(where + " has a \"kid\" that is not its RFC 7638 thumbprint " + thumbprint);
        }
        JsonNode alg = jwk.get("alg");
        if (alg != null && !(alg.isString() && (alg.stringValue().equals("EdDSA") || alg.stringValue().equals("Ed25519")))) {
            throw new KeyFormatException(where + " has an \"alg\" other than EdDSA/Ed25519");
        }
        JsonNode use = jwk.get("use");
        if (use != null && !(use.isString() && use.stringValue().equals("sig"))) {
            throw new KeyFormatException(where + " has a \"use\" other than sig");
        }
        return key;
    }

    private static void requireMember(JsonNode jwk, String name, String expected, String where) throws KeyFormatException {
        JsonNode value = jwk.get(name);
        if (value == null || !value.isString()) {
            throw new KeyFormatException(where + " has no \"" + name + "\" (expected " + expected + ")");
        }
        if (!value.stringValue().equals(expected)) {
            throw new KeyFormatException(where + " has " + name + " " + Sentences.quote(value.stringValue())
                    + ", only " + name + " " + expected + " is accepted");
        }
    }

    private static void requireFingerprintKey(byte[] fingerprintKey) throws KeyFormatException {
        int length = fingerprintKey == null ? 0 : fingerprintKey.length;
        if (length < MIN_FINGERPRINT_KEY_BYTES) {
            throw new KeyFormatException(FINGERPRINT_KEY_FILE + " holds " + length + " bytes; it must hold at least "
                    + MIN_FINGERPRINT_KEY_BYTES + " random bytes");
        }
    }

    @Override
    public byte[] fingerprintKey() {
        return fingerprintKey.clone();
    }

    @Override
    public String toString() {
        return "TrustBundle[kids=" + keysByKid.keySet() + "]";
    }
}
