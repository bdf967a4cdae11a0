package dev.crifresh.common.registry;

import java.util.regex.Pattern;

/**
 * A dotted key path for error messages, e.g. {@code plugins."io.containerd.cri.v1.images".registry}. Keys
 * that are not bare words are quoted. Only key names ever appear, never values.
 */
final class KeyPath {
    private static final Pattern BARE = Pattern.compile("[A-Za-z0-9_-]+");

    private final String text;

    private KeyPath(String text) {
        this.text = text;
    }

    static KeyPath root(String key) {
        return new KeyPath(segment(key));
    }

    KeyPath child(String key) {
        return new KeyPath(text + "." + segment(key));
    }

    /** A child named after a registry host key, with any {@code user:pass@} part left out. */
    KeyPath hostChild(String rawHostKey) {
        return child(rawHostKey.indexOf('@') >= 0 ? RegistryHosts.normalise(rawHostKey) : rawHostKey);
    }

    private static String segment(String key) {
        if (BARE.matcher(key).matches()) {
            return key;
        }
        StringBuilder quoted = new StringBuilder(key.length() + 2).append('"');
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                quoted.append(String.format("\\u%04X", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    @Override
    public String toString() {
        return text;
    }
}
