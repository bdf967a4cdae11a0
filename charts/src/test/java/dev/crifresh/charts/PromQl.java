package dev.crifresh.charts;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Extracts the metric names a PromQL expression (or a Grafana label_values query) reads. */
final class PromQl {

    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "offset", "and", "or", "unless", "inf", "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PromQl() {
    }

    static Set<String> metricNames(String expression) {
        String e = expression
                .replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")          // string literals (label values)
                .replaceAll("\\{[^}]*}", " ")                          // label matchers
                .replaceAll("\\[[^]]*]", " ")                          // range selectors, subqueries
                .replaceAll("(?i)\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("label_values\\((.*),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*\\)", "$1")
                .replaceAll("\\$[a-zA-Z_][a-zA-Z0-9_]*", " ");        // Grafana variables
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(e);
        while (m.find()) {
            String word = m.group();
            int after = m.end();
            while (after < e.length() && Character.isWhitespace(e.charAt(after))) {
                after++;
            }
            boolean isCall = after < e.length() && e.charAt(after) == '(';
            boolean partOfNumber = m.start() > 0 && (Character.isDigit(e.charAt(m.start() - 1)) || e.charAt(m.start() - 1) == '.');
            if (!isCall && !partOfNumber && !KEYWORDS.contains(word.toLowerCase())) {
                names.add(word);
            }
        }
        return names;
    }
}
