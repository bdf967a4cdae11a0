package dev.crifresh.coordinator.silence;

import java.util.ArrayList;
import java.util.List;

/**
 * The matchers of one silence per node. Alertmanager mutes an alert when all matchers of one silence match it,
 * so alternatives are separate silences: the defaults are two, {@code node="<name>"} (kube-state-metrics style
 * alerts such as {@code KubeNodeNotReady}, whose {@code instance} is kube-state-metrics itself) and
 * {@code instance=~"<name>(:.*)?"} (node-exporter style scrape targets). One {@code --silence-matcher} value is
 * one spec: matchers separated by commas, optionally in braces, as in {@code amtool}:
 * {@code {node="{node}",severity!="critical"}}.
 */
public record SilenceSpec(List<SilenceMatcher> matchers) {

    public static final List<SilenceSpec> DEFAULTS = List.of(parse("node=\"{node}\""), parse("instance=~\"{node}(:.*)?\""));

    public SilenceSpec {
        matchers = List.copyOf(matchers);
        if (matchers.isEmpty()) {
            throw new IllegalArgumentException("a silence needs at least one matcher");
        }
    }

    /** @throws IllegalArgumentException naming the bad matcher */
    public static SilenceSpec parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.startsWith("{") && t.endsWith("}")) {
            t = t.substring(1, t.length() - 1);
        }
        List<SilenceMatcher> matchers = new ArrayList<>();
        for (String part : splitOutsideQuotes(t)) {
            matchers.add(SilenceMatcher.parse(part));
        }
        SilenceSpec spec = new SilenceSpec(matchers);
        if (matchers.stream().noneMatch(SilenceMatcher::selective)) {
            throw new IllegalArgumentException("'" + text + "' would silence alerts of every node: Alertmanager needs at least"
                    + " one matcher that is = or =~ and does not match the empty string");
        }
        return spec;
    }

    private static List<String> splitOutsideQuotes(String s) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && quoted && i + 1 < s.length()) {
                current.append(c).append(s.charAt(++i));
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }

    @Override
    public String toString() {
        return "{" + String.join(",", matchers.stream().map(SilenceMatcher::toString).toList()) + "}";
    }
}
