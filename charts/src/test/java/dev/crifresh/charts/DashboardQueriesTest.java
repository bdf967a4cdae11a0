package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard's headline counts, evaluated by the real promtool ({@code promtool test rules}, promql_expr_test) on
 * series as kube-state-metrics and the agents export them: Fresh counts only nodes whose proof is live.
 */
class DashboardQueriesTest {
    /** At minute 10 (time() = 600): four nodes say True or False, with live, expired or no attestations. */
    private static final String SERIES = """
            - series: 'kube_node_status_condition{condition="ContainerdConfigFresh",node="live",status="true"}'
              values: '1x10'
            - series: 'crifresh_attestation_expiry_timestamp_seconds{job="crifresh-agent",node="live"}'
              values: '1000x10'
            - series: 'kube_node_status_condition{condition="ContainerdConfigFresh",node="expired",status="true"}'
              values: '1x10'
            - series: 'crifresh_attestation_expiry_timestamp_seconds{job="crifresh-agent",node="expired"}'
              values: '300x10'
            - series: 'kube_node_status_condition{condition="ContainerdConfigFresh",node="agent-gone",status="true"}'
              values: '1x10'
            - series: 'kube_node_status_condition{condition="ContainerdConfigFresh",node="stale",status="true"}'
              values: '0x10'
            - series: 'kube_node_status_condition{condition="ContainerdConfigFresh",node="stale",status="false"}'
              values: '1x10'
            - series: 'crifresh_attestation_expiry_timestamp_seconds{job="crifresh-agent",node="stale"}'
              values: '1000x10'
            - series: 'crifresh_node_reason{job="crifresh-agent",node="stale",verdict="stale",reason="HostsTomlRedirectsPulls"}'
              values: '1x10'
            - series: 'crifresh_node_reason{job="crifresh-agent",node="live",verdict="fresh",reason="ContainerdStartedAfterConfig"}'
              values: '1x10'
            """;

    @TempDir
    Path dir;

    @Test
    void freshCountsOnlyLiveProofsAndTheRestAreCountedApart() throws Exception {
        assertEquals(0, run(1, 2, 1).exit(), () -> output(1, 2, 1));
    }

    /** The test can fail: other counts are refused. */
    @Test
    void aWrongCountFails() throws Exception {
        assertNotEquals(0, run(3, 2, 1).exit(), "the old Fresh count (every True condition) was 3");
    }

    private String output(int fresh, int expired, int pending) {
        try {
            return run(fresh, expired, pending).output();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private RealBinary.Run run(int fresh, int expired, int pending) throws Exception {
        RealBinary promtool = RealBinary.PROMTOOL.require();
        JsonNode dashboard = JsonMapper.builder().build()
                .readTree(Files.readString(Chart.SOURCE.resolve("files/dashboards/crifresh.json")));
        StringBuilder tests = new StringBuilder("rule_files: []\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n"
                + "    input_series:\n" + SERIES.indent(6) + "    promql_expr_test:\n");
        expect(tests, expr(dashboard, "Fresh (live proof)"), fresh);
        expect(tests, expr(dashboard, "True, proof expired"), expired);
        expect(tests, expr(dashboard, "Config-pending"), pending);
        Path file = dir.resolve("dashboard.test.yml");
        Files.writeString(file, tests.toString());
        return promtool.run(dir, "test", "rules", file.getFileName().toString());
    }

    private static void expect(StringBuilder tests, String expr, int value) {
        tests.append("      - expr: '").append(expr.replace("$node", ".*").replace("'", "''")).append("'\n")
                .append("        eval_time: 10m\n")
                .append("        exp_samples:\n          - labels: '{}'\n            value: ").append(value).append('\n');
    }

    private static String expr(JsonNode dashboard, String title) {
        for (JsonNode panel : dashboard.path("panels")) {
            if (title.equals(panel.path("title").asString())) {
                return panel.path("targets").get(0).path("expr").asString();
            }
        }
        assertNotNull(null, "no panel " + title);
        return null;
    }
}
