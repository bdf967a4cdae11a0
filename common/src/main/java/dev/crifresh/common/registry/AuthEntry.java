package dev.crifresh.common.registry;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The four credential fields of one registry, as containerd's {@code registry.configs.<host>.auth} table
 * and docker's {@code auths.<host>} object both spell them, turned into a {@link RegistryAuth}: as docker reads
 * them ({@link #read}) or as containerd's CRI sends them ({@link #containerd}).
 */
final class AuthEntry {
    static final String USERNAME = "username";
    static final String PASSWORD = "password";
    static final String AUTH = "auth";
    static final String IDENTITY_TOKEN = "identitytoken";
    private static final Pattern CANONICAL = Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

    private AuthEntry() {
    }

    /**
     * Reads docker's {@code config.json} entry at {@code path} for registry key {@code rawHost}. {@code auth}
     * (base64 of {@code user:pass}, split at the first colon) is decoded only when username and password are
     * both empty; line breaks in it are ignored and padding is optional. Absent fields are empty strings.
     */
    static RegistryAuth read(String rawHost, JsonNode entry, KeyPath path) throws InvalidRegistryConfig {
        String host = host(rawHost, path);
        String username = text(entry, USERNAME, path);
        String password = text(entry, PASSWORD, path);
        String auth = text(entry, AUTH, path);
        String identityToken = text(entry, IDENTITY_TOKEN, path);
        if (username.isEmpty() && password.isEmpty() && !auth.isEmpty()) {
            String[] pair = split(decode(lenient(auth, path.child(AUTH), host), path.child(AUTH), host), path, host);
            username = pair[0];
            password = pair[1];
        }
        return checked(host, username, password, identityToken, path);
    }

    /**
     * The credential containerd's CRI sends for the {@code auth} table at {@code path} of registry key
     * {@code rawHost}: its {@code ParseAuth} (containerd/containerd {@code internal/cri/server/images/image_pull.go}
     * in 2.x, {@code pkg/cri/server/image_pull.go} in 1.6 and 1.7) takes a non-empty {@code username} with the
     * {@code password} beside it; else a non-empty {@code identitytoken} alone; else {@code auth}, decoded with
     * Go's {@code base64.StdEncoding} and cut at its first {@code ':'}; else nothing. Only canonical, padded
     * standard base64 is read: Go fails on a missing pad or any space (and the pull then sends nothing) and skips
     * line breaks, so any other form is a doubt, as is a decoded value without a colon (the pull fails) or with a
     * NUL in it (containerd trims NULs from the password). The fields ParseAuth does not use are not in the result.
     */
    static RegistryAuth containerd(String rawHost, JsonNode entry, KeyPath path) throws InvalidRegistryConfig {
        String host = host(rawHost, path);
        String username = text(entry, USERNAME, path);
        String password = text(entry, PASSWORD, path);
        String auth = text(entry, AUTH, path);
        String identityToken = text(entry, IDENTITY_TOKEN, path);
        if (!username.isEmpty()) {
            return checked(host, username, password, "", path);
        }
        if (!identityToken.isEmpty()) {
            return checked(host, "", "", identityToken, path);
        }
        if (auth.isEmpty()) {
            return new RegistryAuth(host, "", "", "");
        }
        String[] pair = split(decode(canonical(auth, path.child(AUTH), host), path.child(AUTH), host), path, host);
        return checked(host, pair[0], pair[1], "", path);
    }

    private static String host(String rawHost, KeyPath path) throws InvalidRegistryConfig {
        String host = RegistryHosts.normalise(rawHost);
        if (host.isEmpty()) {
            throw new InvalidRegistryConfig(path + " names no registry host");
        }
        return host;
    }

    private static String[] split(String decoded, KeyPath path, String host) throws InvalidRegistryConfig {
        rejectNul(decoded, AUTH, path, host);
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            throw new InvalidRegistryConfig(path.child(AUTH) + " of registry " + host
                    + " does not decode to user:password (no colon): containerd's pull fails on it and sends nothing");
        }
        return new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    }

    private static RegistryAuth checked(String host, String username, String password, String identityToken,
                                        KeyPath path) throws InvalidRegistryConfig {
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

    /** docker's reading: whitespace dropped, padding optional. */
    private static byte[] lenient(String auth, KeyPath where, String host) throws InvalidRegistryConfig {
        try {
            return Base64.getDecoder().decode(auth.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new InvalidRegistryConfig(where + " of registry " + host + " is not valid base64");
        }
    }

    /**
     * Canonical standard base64 only: the alphabet {@code A-Z a-z 0-9 + /}, padded to a multiple of four, unused
     * bits zero (Go's non-strict decoder would accept other bits; the agent does not reason about them).
     */
    static byte[] canonical(String auth, KeyPath where, String host) throws InvalidRegistryConfig {
        if (CANONICAL.matcher(auth).matches()) {
            byte[] bytes = Base64.getDecoder().decode(auth);
            if (Base64.getEncoder().encodeToString(bytes).equals(auth)) {
                return bytes;
            }
        }
        throw new InvalidRegistryConfig(where + " of registry " + host + " is not canonical padded standard base64:"
                + " containerd decodes it with Go's base64.StdEncoding, which fails on a space, a tab or a missing"
                + " pad (the pull then sends nothing) and skips line breaks, so the agent does not read it");
    }

    private static String decode(byte[] bytes, KeyPath where, String host) throws InvalidRegistryConfig {
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
