package dev.crifresh.common.attest;

/** Puts values that may come from an untrusted token into human sentences safely: quoted, printable ASCII, short. */
final class Sentences {
    private static final int MAX_VALUE = 80;

    private Sentences() {
    }

    static String quote(String value) {
        if (value == null) {
            return "(none)";
        }
        StringBuilder out = new StringBuilder("\"");
        int limit = Math.min(value.length(), MAX_VALUE);
        for (int i = 0; i < limit; i++) {
            char c = value.charAt(i);
            out.append(c < 0x20 || c > 0x7e || c == '"' || c == '\\' ? '?' : c);
        }
        if (value.length() > MAX_VALUE) {
            out.append("...");
        }
        return out.append('"').toString();
    }
}
