package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The chart's PrometheusRule as helm-java renders it, checked and unit-tested by the real promtool (Debian's
 * prometheus 2.42): {@code promtool check rules}, then {@code promtool test rules} with the input series and
 * expected alerts of src/test/resources/prometheus/*.test.yml — the {@code for:} windows to the minute, the
 * labels, and the summary and description with their label templates filled in.
 */
class PrometheusRuleTest {
    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Map<String, Object> ENABLED = Map.of("metrics.prometheusRule.enabled", true);
    private static final Map<String, Object> CUSTOM = Map.of("metrics.prometheusRule.enabled", true,
            "metrics.prometheusRule.staleFor", "2h", "metrics.prometheusRule.apiErrorsFor", "30m",
            "metrics.prometheusRule.alertLabels.team", "platform");

    @TempDir
    Path dir;

    /** The rendered PrometheusRule's spec, written as a plain Prometheus rules file. */
    private Path rules(Map<String, Object> values) throws IOException {
        JsonNode rule = Chart.render(values).one("PrometheusRule", "crifresh");
        ObjectNode file = YAML.createObjectNode();
        file.set("groups", rule.path("spec").path("groups"));
        Path rules = dir.resolve("rules.yml");
        Files.writeString(rules, YAML.writeValueAsString(file));
        return rules;
    }

    private Path testFile(String name) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/prometheus/" + name)) {
            Path to = dir.resolve(name);
            Files.copy(in, to);
            return to;
        }
    }

    private static List<String> alertNames(Path rules) throws IOException {
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode group : YAML.readTree(rules.toFile()).path("groups").values()) {
            for (JsonNode rule : group.path("rules").values()) {
                names.add(rule.path("alert").asString());
            }
        }
        return names;
    }

    @Test
    void promtoolAcceptsTheRenderedRules() throws Exception {
        RealBinary promtool = RealBinary.PROMTOOL.require();
        Path rules = rules(ENABLED);
        RealBinary.Run check = promtool.run(dir, "check", "rules", rules.toString());
        assertEquals(0, check.exit(), check.output());
        assertTrue(check.output().contains("SUCCESS: 6 rules found"), check.output());
        assertEquals(List.of("CrifreshNodeNotFresh", "CrifreshAttestationExpired", "CrifreshAgentApiErrors",
                "CrifreshAgentMissing", "CrifreshAgentDown", "CrifreshRequestedProofUnavailable"), alertNames(rules));
    }

    @Test
    void everyAlertFiresExactlyWhenItsUnitTestsSayWithTheDefaults() throws Exception {
        RealBinary promtool = RealBinary.PROMTOOL.require();
        Path rules = rules(ENABLED);
        Path tests = testFile("alerts.test.yml");
        RealBinary.Run run = promtool.run(dir, "test", "rules", tests.getFileName().toString());
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("SUCCESS"), run.output());

        // every alert has a case where it fires and one where it does not (yet)
        Map<String, Set<Boolean>> cases = new LinkedHashMap<>();
        for (JsonNode test : YAML.readTree(tests.toFile()).path("tests").values()) {
            for (JsonNode c : test.path("alert_rule_test").values()) {
                cases.computeIfAbsent(c.path("alertname").asString(), k -> new LinkedHashSet<>())
                        .add(!c.path("exp_alerts").isEmpty());
            }
        }
        for (String alert : alertNames(rules)) {
            assertEquals(Set.of(true, false), cases.get(alert), alert + ": cases that fire and that do not");
        }
    }

    @Test
    void theValuesReachTheWindowsLabelsAndDescriptions() throws Exception {
        RealBinary promtool = RealBinary.PROMTOOL.require();
        rules(CUSTOM);
        RealBinary.Run run = promtool.run(dir, "test", "rules", testFile("alerts-custom.test.yml").getFileName().toString());
        assertEquals(0, run.exit(), run.output());
    }

    /** The unit tests can fail: the default expectations do not hold for a rule rendered with other windows. */
    @Test
    void theUnitTestsFailForARuleWithOtherWindows() throws Exception {
        RealBinary promtool = RealBinary.PROMTOOL.require();
        rules(CUSTOM);
        RealBinary.Run run = promtool.run(dir, "test", "rules", testFile("alerts.test.yml").getFileName().toString());
        assertNotEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("CrifreshNodeNotFresh") && run.output().contains("FAILED"), run.output());
    }
}
