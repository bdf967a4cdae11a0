package dev.crifresh.common.registry;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code HMAC-SHA256(key, "crifresh-cred-v1\0" host \0 username \0 password \0 identitytoken)} over the
 * UTF-8 bytes, base64url without padding, first 22 characters. The host is normalised first
 * ({@link RegistryHosts#normalise}). The key keeps weak passwords from offline guessing by anyone who can
 * read the published fingerprints.
 */
public final class CredentialFingerprint {
    /** The trust bundle's fingerprint key is at least this long. */
    public static final int MIN_KEY_BYTES = 32;
    public static final int LENGTH = 22;

    private static final String DOMAIN = "crifresh-cred-v1";
    private static final char SEPARATOR = '\u0000';
    private static final String ALGORITHM = "HmacSHA256";

    private CredentialFingerprint() {
    }

    /**
     * @throws IllegalArgumentException when the key is shorter than {@value #MIN_KEY_BYTES} bytes or a field
     *     contains a NUL (the parsers never produce one)
     */
    public static String of(byte[] key, RegistryAuth auth) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(auth, "auth");
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "fingerprint key must be at least " + MIN_KEY_BYTES + " bytes, got " + key.length);
        }
        String host = RegistryHosts.normalise(auth.host());
        String input = DOMAIN + SEPARATOR + noNul(host, "host") + SEPARATOR + noNul(auth.username(), "username")
                + SEPARATOR + noNul(auth.password(), "password") + SEPARATOR
                + noNul(auth.identityToken(), "identityToken");
        byte[] mac;
        try {
            Mac hmac = Mac.getInstance(ALGORITHM);
            hmac.init(new SecretKeySpec(key, ALGORITHM));
            mac = hmac.doFinal(input.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK must provide " + ALGORITHM, e);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac).substring(0, LENGTH);
    }

    /**
     * Normalised host → fingerprint, iterating in host order.
     *
     * @throws IllegalArgumentException when one host has two different credentials in the list
     */
    public static Map<String, String> fingerprints(byte[] key, List<RegistryAuth> credentials) {
        Objects.requireNonNull(credentials, "credentials");
        TreeMap<String, String> byHost = new TreeMap<>();
        for (RegistryAuth auth : credentials) {
            String host = RegistryHosts.normalise(auth.host());
            String fingerprint = of(key, auth);
            String earlier = byHost.putIfAbsent(host, fingerprint);
            if (earlier != null && !earlier.equals(fingerprint)) {
                throw new IllegalArgumentException("registry " + host + " has two different credentials");
            }
        }
        return Collections.unmodifiableSortedMap(byHost);
    }

    private static String noNul(String field, String name) {
        if (field.indexOf(SEPARATOR) >= 0) {
            throw new IllegalArgumentException(name + " contains a NUL character");
        }
        return field;
    }
}
