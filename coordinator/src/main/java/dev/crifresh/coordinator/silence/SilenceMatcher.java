package dev.crifresh.coordinator.silence;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One Alertmanager matcher of a node's silence, in Alertmanager's own syntax ({@code label="value"},
 * {@code label!="value"}, {@code label=~"regex"}, {@code label!~"regex"}), where {@code {node}} in the value
 * stands for the node's name. In a regex value the name is inserted regex-quoted, so {@code worker.a} matches
 * only itself. Alertmanager silences an alert when <b>all</b> matchers of a silence match it: see {@link SilenceSpec}.
 */
public record SilenceMatcher(String name, String value, boolean isRegex, boolean isEqual) {

    private static final Pattern SYNTAX = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*(.*?)\\s*");
    private static final String PLACEHOLDER = "{node}";
    private static final String SAMPLE_NODE = "worker-a.example.com";

    /** @throws IllegalArgumentException naming what is wrong with {@code text} */
    public static SilenceMatcher parse(String text) {
        Matcher m = SYNTAX.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a matcher: expected label=\"value\", label!=\"value\","
                    + " label=~\"regex\" or label!~\"regex\" ({node} stands for the node's name)");
        }
        String op = m.group(2);
        String value = unquote(text, m.group(3));
        SilenceMatcher matcher = new SilenceMatcher(m.group(1), value, op.endsWith("~"), !op.startsWith("!"));
        if (matcher.isRegex) {
            try {
                Pattern.compile(matcher.render(SAMPLE_NODE));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("'" + text + "': not a valid regex: " + e.getDescription());
            }
        }
        return matcher;
    }

    /** Whether this matcher, for some node, matches the empty string (a silence needs one that does not). */
    boolean selective() {
        String v = render(SAMPLE_NODE);
        boolean matchesEmpty = isRegex ? Pattern.matches(v, "") : v.isEmpty();
        return isEqual && !matchesEmpty;
    }

    /** The value for this node. */
    public String render(String node) {
        return value.replace(PLACEHOLDER, isRegex ? quoteMeta(node) : node);
    }

    @Override
    public String toString() {
        return name + (isEqual ? "" : "!") + (isRegex ? "=~" : "=") + "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String unquote(String text, String raw) {
        if (!raw.startsWith("\"")) {
            if (raw.isEmpty() || raw.contains("\"") || raw.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("'" + text + "': quote the value (label=\"value\")");
            }
            return raw;
        }
        if (raw.length() < 2 || !raw.endsWith("\"")) {
            throw new IllegalArgumentException("'" + text + "': the value's closing quote is missing");
        }
        StringBuilder out = new StringBuilder();
        String inner = raw.substring(1, raw.length() - 1);
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c == '\\' && i + 1 < inner.length()) {
                char next = inner.charAt(++i);
                out.append(next == 'n' ? '\n' : next);
            } else if (c == '"') {
                throw new IllegalArgumentException("'" + text + "': an unescaped quote inside the value");
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Go's regexp.QuoteMeta: Alertmanager compiles the value with RE2, anchored. */
    static String quoteMeta(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}
