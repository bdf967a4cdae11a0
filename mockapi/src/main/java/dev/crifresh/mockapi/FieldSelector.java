package dev.crifresh.mockapi;

import tools.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A list request's {@code fieldSelector} ({@code a.b=v}, {@code a.b==v}, {@code a.b!=v}, comma-separated,
 * all must hold), applied to stored objects as kube-apiserver applies it. fabric8's mock only knows
 * {@code metadata.name} and {@code metadata.namespace} and answers any other field with an empty list:
 * {@code kubectl describe node} then shows no pods, and a drain that lists a node's pods by
 * {@code spec.nodeName} would find nothing to evict. A missing field compares as the empty string, as a
 * real server's field label conversion does.
 */
record FieldSelector(List<Requirement> requirements) {

    record Requirement(String[] path, boolean equal, String value) {
        boolean matches(JsonNode object) {
            JsonNode node = object;
            for (String segment : path) {
                node = node == null ? null : node.get(segment);
            }
            String actual = node == null || node.isNull() ? "" : node.asString();
            return equal == actual.equals(value);
        }
    }

    /** The selector of a query string's {@code fieldSelector} parameter (URL-encoded), or null when absent. */
    static FieldSelector fromQuery(String query) {
        String raw = QueryString.value(query, "fieldSelector");
        return raw == null || raw.isBlank() ? null : parse(raw);
    }

    static FieldSelector parse(String selector) {
        List<Requirement> requirements = new ArrayList<>();
        for (String term : selector.split(",")) {
            String t = term.trim();
            if (t.isEmpty()) {
                continue;
            }
            int ne = t.indexOf("!=");
            int eq = t.indexOf('=');
            if (ne > 0) {
                requirements.add(new Requirement(t.substring(0, ne).trim().split("\\."), false, t.substring(ne + 2).trim()));
            } else if (eq > 0) {
                int valueAt = t.startsWith("==", eq) ? eq + 2 : eq + 1;
                requirements.add(new Requirement(t.substring(0, eq).trim().split("\\."), true, t.substring(valueAt).trim()));
            } else {
                throw new IllegalArgumentException("invalid field selector term '" + t + "'");
            }
        }
        return new FieldSelector(List.copyOf(requirements));
    }

    /** The value an equality requirement on {@code field} ({@code spec.nodeName}) asks for, or null when none does. */
    String equalTo(String field) {
        for (Requirement r : requirements) {
            if (r.equal() && String.join(".", r.path()).equals(field)) {
                return r.value();
            }
        }
        return null;
    }

    boolean matches(JsonNode object) {
        return requirements.stream().allMatch(r -> r.matches(object));
    }

    /** Query-string helpers. */
    static final class QueryString {
        private QueryString() {
        }

        static String value(String query, String name) {
            if (query == null) {
                return null;
            }
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                if (key.equals(name)) {
                    return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                }
            }
            return null;
        }

        /** The query without the named parameter, or null when nothing is left. */
        static String without(String query, String name) {
            if (query == null) {
                return null;
            }
            List<String> kept = new ArrayList<>();
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                if (!key.equals(name) && !pair.isEmpty()) {
                    kept.add(pair);
                }
            }
            return kept.isEmpty() ? null : String.join("&", kept);
        }
    }
}
