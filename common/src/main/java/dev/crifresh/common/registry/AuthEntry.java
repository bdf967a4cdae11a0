package dev.crifresh.common.registry;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import tools.jackson.databind.JsonNode;

/**
 * The four credential fields of one registry, as containerd's {@code registry.configs.<host>.auth} table
 * and docker's {@code auths.<host>} object both spell them, turned into a {@link RegistryAuth}.
 */
final class AuthEntry {
    static final String USERNAME = "username";
    static final String PASSWORD = "password";
    static final String AUTH = "auth";
    static final String IDENTITY_TOKEN = "identitytoken";

    private AuthEntry() {
    }

    /**
     * Reads the entry at {@code path} for registry key {@code rawHost}. {@code auth} (base64 of
     * {@code user:pass}, split at the first colon) is decoded only when username and password are both
     * empty. Absent fields are empty strings.
     */
    static RegistryAuth read(String rawHost, JsonNode entry, KeyPath path) throws InvalidRegistryConfig {
        String host = RegistryHosts.normalise(rawHost);
        if (host.isEmpty()) {
            throw new InvalidRegistryConfig(path + " names no registry host");
        }
        String username = text(entry, USERNAME, path);
        String password = text(entry, PASSWORD, path);
        String auth = text(entry, AUTH, path);
        String identityToken = text(entry, IDENTITY_TOKEN, path);
        if (username.isEmpty() && password.isEmpty() && !auth.isEmpty()) {
            String decoded = decodeAuth(auth, path.child(AUTH), host);
            rejectNul(decoded, AUTH, path, host);
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                throw new InvalidRegistryConfig(path.child(AUTH) + " of registry " + host
                        + " does not decode to user:password (no colon)");
            }
            username = decoded.substring(0, colon);
            password = decoded.substring(colon + 1);
        }
        // The fingerprint joins the fields with NUL; a NUL inside a field could make two credentials collide.
        rejectNul(username, USERNAME, path, host);
        rejectNul(password, PASSWORD, path, host);
        rejectNul(identityToken, IDENTITY_TOKEN, path, host);
        return new RegistryAuth(host, username, password, identityToken);
    }

    private static String text(JsonNode entry, String field, KeyPath path) throws InvalidRegistryConfig {
        JsonNode value = entry.get(field);
        if (value == null || value.isNull()) {
            return "";
        }
        if (!value.isString()) {
            throw new InvalidRegistryConfig(path.child(field) + " is not a string");
        }
        return value.stringValue();
    }

    private static String decodeAuth(String auth, KeyPath where, String host) throws InvalidRegistryConfig {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(auth.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new InvalidRegistryConfig(where + " of registry " + host + " is not valid base64");
        }
        try {
            // Strict: a lossy decode could map two different passwords to the same text and fingerprint.
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidRegistryConfig(where + " of registry " + host + " does not decode to UTF-8 text");
        }
    }

    private static void rejectNul(String value, String field, KeyPath path, String host)
            throws InvalidRegistryConfig {
        if (value.indexOf('\0') >= 0) {
            throw new InvalidRegistryConfig(path.child(field) + " of registry " + host + " contains a NUL character");
        }
    }
}
