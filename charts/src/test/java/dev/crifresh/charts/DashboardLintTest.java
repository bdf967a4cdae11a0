package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The dashboard checked with the rules of grafana/dashboard-linter that apply to it (the job/instance rules do
 * not: the dashboard joins on {@code node}): a templated Prometheus datasource, that datasource on every panel
 * and target, {@code $__rate_interval} as the range of every rate/irate/increase, a unit on every panel, unique
 * panel ids. Exclusions, with their reasons, are read from the linter's own {@code .lint} file beside the JSON.
 */
class DashboardLintTest {
    static final Path DASHBOARD = Chart.SOURCE.resolve("files/dashboards/crifresh.json");
    private static final Pattern RANGE_FUNCTION = Pattern.compile("\\b(rate|irate|increase)\\s*\\(");
    /** Grafana's unit ids the dashboard may use (Grafana: packages/grafana-data/src/valueFormats/categories.ts). */
    private static final Set<String> UNITS = Set.of("none", "short", "percent", "percentunit", "s", "ms", "dtdurations",
            "dateTimeAsIso", "dateTimeFromNow", "ops", "reqps", "bytes", "decbytes", "bool", "bool_yes_no");

    private final JsonNode dashboard;
    private final JsonNode exclusions;

    DashboardLintTest() throws IOException {
        dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
        exclusions = YAMLMapper.builder().build().readTree(DASHBOARD.resolveSibling(".lint").toFile()).path("exclusions");
    }

    /** Every panel, those nested in collapsed rows included. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels").values()) {
            all.add(p);
            for (JsonNode nested : p.path("panels").values()) {
                all.add(nested);
            }
        }
        return all;
    }

    private static boolean isRow(JsonNode panel) {
        return "row".equals(panel.path("type").asString());
    }

    private boolean excluded(String rule, JsonNode panel, int targetIdx) {
        for (JsonNode entry : exclusions.path(rule).path("entries").values()) {
            if (entry.path("panel").asString().equals(panel.path("title").asString())
                    && (!entry.has("targetIdx") || entry.path("targetIdx").asInt() == targetIdx)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void templateDatasourceRule() {
        JsonNode first = dashboard.path("templating").path("list").get(0);
        assertEquals("datasource", first.path("name").asString());
        assertEquals("datasource", first.path("type").asString());
        assertEquals("prometheus", first.path("query").asString());
        for (JsonNode variable : dashboard.path("templating").path("list").values()) {
            if ("query".equals(variable.path("type").asString())) {
                assertEquals("${datasource}", variable.path("datasource").path("uid").asString(), variable.path("name").asString());
            }
        }
    }

    @Test
    void panelDatasourceRule() {
        for (JsonNode panel : panels(dashboard)) {
            if (isRow(panel)) {
                continue;
            }
            String title = panel.path("title").asString();
            assertEquals("${datasource}", panel.path("datasource").path("uid").asString(), title);
            assertEquals("prometheus", panel.path("datasource").path("type").asString(), title);
            for (JsonNode target : panel.path("targets").values()) {
                assertEquals("${datasource}", target.path("datasource").path("uid").asString(),
                        title + " " + target.path("refId").asString());
            }
        }
    }

    @Test
    void targetRateIntervalRule() {
        List<String> violations = new ArrayList<>();
        int checked = 0;
        for (JsonNode panel : panels(dashboard)) {
            int idx = 0;
            for (JsonNode target : panel.path("targets").values()) {
                String expr = target.path("expr").asString();
                for (String range : rangesOfRateFunctions(expr)) {
                    checked++;
                    if (!range.equals("$__rate_interval") && !excluded("target-rate-interval-rule", panel, idx)) {
                        violations.add(panel.path("title").asString() + " [" + idx + "]: [" + range + "] in " + expr);
                    }
                }
                idx++;
            }
        }
        assertTrue(checked >= 8, "rate functions found: " + checked);
        assertEquals(List.of(), violations);
        assertTrue(exclusions.path("target-rate-interval-rule").path("reason").asString().length() > 20, "an exclusion says why");
    }

    /** The range selector inside each rate/irate/increase call ({@code rate(x{…}[5m])} → {@code 5m}). */
    static List<String> rangesOfRateFunctions(String expr) {
        List<String> ranges = new ArrayList<>();
        Matcher m = RANGE_FUNCTION.matcher(expr);
        while (m.find()) {
            int depth = 1;
            int i = m.end();
            int open = -1;
            boolean quoted = false;
            for (; i < expr.length() && depth > 0; i++) {
                char c = expr.charAt(i);
                if (quoted) {
                    if (c == '\\') {
                        i++;
                    } else if (c == '"') {
                        quoted = false;
                    }
                } else if (c == '"') {
                    quoted = true;
                } else if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                } else if (c == '[' && depth == 1) {
                    open = i;
                }
            }
            int close = open < 0 ? -1 : expr.indexOf(']', open);
            ranges.add(open < 0 || close < 0 ? "(none)" : expr.substring(open + 1, close));
        }
        return ranges;
    }

    @Test
    void theRangeFinderSeesEveryCall() {
        assertEquals(List.of("$__rate_interval", "10m"), rangesOfRateFunctions(
                "sum(rate(a{x=\"(\"}[$__rate_interval])) / max by (n) (increase(b[10m]) > 0)"));
        assertEquals(List.of("(none)"), rangesOfRateFunctions("rate(c)"));
    }

    @Test
    void panelUnitsRule() {
        for (JsonNode panel : panels(dashboard)) {
            if (isRow(panel)) {
                continue;
            }
            String unit = panel.path("fieldConfig").path("defaults").path("unit").asString("");
            assertTrue(UNITS.contains(unit), panel.path("title").asString() + ": unit '" + unit + "'");
            for (JsonNode override : panel.path("fieldConfig").path("overrides").values()) {
                for (JsonNode property : override.path("properties").values()) {
                    if ("unit".equals(property.path("id").asString())) {
                        assertTrue(UNITS.contains(property.path("value").asString()),
                                panel.path("title").asString() + ": override unit " + property.path("value"));
                    }
                }
            }
        }
    }

    @Test
    void panelIdsAreUnique() {
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : panels(dashboard)) {
            assertTrue(panel.has("id"), panel.path("title").asString());
            assertTrue(ids.add(panel.path("id").asInt()), "duplicate panel id " + panel.path("id"));
        }
    }
}
