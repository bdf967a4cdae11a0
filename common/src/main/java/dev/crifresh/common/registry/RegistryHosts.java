package dev.crifresh.common.registry;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One spelling per registry host, so containerd's and docker's names compare equal: scheme, path and
 * trailing slash dropped, lower case, and {@code index.docker.io}/{@code registry-1.docker.io} →
 * {@code docker.io}. A port is kept ({@code registry.local:5000}).
 */
public final class RegistryHosts {
    private static final Pattern SCHEME = Pattern.compile("^[a-z][a-z0-9+.-]*://");
    private static final Map<String, String> ALIASES = Map.of(
            "index.docker.io", "docker.io",
            "registry-1.docker.io", "docker.io");

    private RegistryHosts() {
    }

    /** Idempotent: {@code normalise(normalise(h)).equals(normalise(h))}. May return "" for a blank input. */
    public static String normalise(String host) {
        Objects.requireNonNull(host, "host");
        String h = host.trim().toLowerCase(Locale.ROOT);
        h = SCHEME.matcher(h).replaceFirst("");
        int end = firstIndexOfAny(h, "/?#");
        if (end >= 0) {
            h = h.substring(0, end);
        }
        // user:pass@host (never expected in a registry key, but it must not survive as part of a "host")
        int at = h.lastIndexOf('@');
        if (at >= 0) {
            h = h.substring(at + 1);
        }
        return ALIASES.getOrDefault(h, h);
    }

    private static int firstIndexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
