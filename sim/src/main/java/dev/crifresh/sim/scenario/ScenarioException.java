package dev.crifresh.sim.scenario;

/**
 * A scenario that cannot be used; the message is one line naming the field (and the node). Text quoted
 * from the file (a value, a key) may hold line breaks or other control characters: they are shown
 * escaped ({@code \n}, {@code \u0007}), so the message stays one line on a terminal.
 */
public class ScenarioException extends Exception {
    public ScenarioException(String message) {
        super(oneLine(message));
    }

    static String oneLine(String message) {
        StringBuilder out = new StringBuilder(message.length());
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
