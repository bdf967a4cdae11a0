package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ObservabilityTest {

    /** The agent's metric names (issue 3's contract), histogram series included. */
    static final Set<String> AGENT_METRICS = Set.of(
            "crifresh_node_fresh",
            "crifresh_containerd_start_timestamp_seconds",
            "crifresh_config_mtime_timestamp_seconds",
            "crifresh_attestation_expiry_timestamp_seconds",
            "crifresh_publishes_total",
            "crifresh_evaluations_total",
            "crifresh_api_errors_total",
            "crifresh_requested_proof_applies",
            "crifresh_heartbeat_timestamp_seconds",
            "crifresh_heartbeat_interval_seconds",
            "crifresh_build_info",
            "crifresh_node_rollout",
            "crifresh_node_stale_taint",
            "crifresh_node_reboot_not_carried_out",
            "crifresh_node_reason",
            "crifresh_proof_fallbacks_total",
            "crifresh_detection_latency_seconds_bucket",
            "crifresh_detection_latency_seconds_count",
            "crifresh_detection_latency_seconds_sum");
    /** What the coordinator pushes to a Pushgateway at the end of a run (--pushgateway). */
    static final Set<String> ROLLOUT_METRICS = Set.of(
            "crifresh_rollout_nodes",
            "crifresh_rollout_outcome_nodes",
            "crifresh_rollout_success",
            "crifresh_rollout_exit_code",
            "crifresh_rollout_duration_seconds",
            "crifresh_rollout_last_run_timestamp_seconds",
            "crifresh_build_info");
    static final Set<String> KUBE_STATE_METRICS = Set.of("kube_node_status_condition");
    /** Read by the alerts only: kube-state-metrics' one series per Node, and Prometheus' own scrape health. */
    static final Set<String> ALERT_ONLY_METRICS = Set.of("kube_node_info", "up");

    static Set<String> known() {
        Set<String> all = new HashSet<>(AGENT_METRICS);
        all.addAll(ROLLOUT_METRICS);
        all.addAll(KUBE_STATE_METRICS);
        all.addAll(ALERT_ONLY_METRICS);
        return all;
    }

    @Test
    void theDashboardIsValidJsonAndQueriesOnlyMetricsThatExist() throws IOException {
        JsonNode configMap = Chart.render().one("ConfigMap", "crifresh-dashboard");
        assertEquals("1", configMap.path("metadata").path("labels").path("grafana_dashboard").asString());
        String shipped = configMap.path("data").path("crifresh.json").asString();
        assertEquals(Files.readString(Chart.SOURCE.resolve("files/dashboards/crifresh.json")).strip(), shipped.strip());
        JsonNode dashboard = JsonMapper.builder().build().readTree(shipped);
        assertEquals("crifresh", dashboard.path("uid").asString());

        List<String> expressions = new ArrayList<>();
        collectQueries(dashboard, expressions);
        assertTrue(expressions.size() >= 20, "queries found: " + expressions.size());
        Set<String> used = new TreeSet<>();
        for (String expression : expressions) {
            Set<String> names = PromQl.metricNames(expression);
            assertFalse(names.isEmpty(), "a query that reads no metric: " + expression);
            for (String name : names) {
                assertTrue(known().contains(name), "unknown metric " + name + " in " + expression);
            }
            used.addAll(names);
        }
        assertTrue(used.containsAll(AGENT_METRICS), "every agent metric is on the dashboard; missing: " + missing(AGENT_METRICS, used));
        assertTrue(used.containsAll(KUBE_STATE_METRICS));
        assertTrue(used.containsAll(ROLLOUT_METRICS), "coordinator runs are shown; missing: " + missing(ROLLOUT_METRICS, used));
        assertTrue(String.join("\n", expressions).contains("condition=\"ContainerdConfigFresh\""));
    }

    /** The Config-pending stat lists exactly the agent reasons the coordinator classifies config-pending. */
    @Test
    void theConfigPendingCountListsTheReasonsARebootDoesNotFix() throws Exception {
        JsonNode dashboard = JsonMapper.builder().build()
                .readTree(Files.readString(Chart.SOURCE.resolve("files/dashboards/crifresh.json")));
        String expr = null;
        for (JsonNode panel : dashboard.path("panels")) {
            if ("Config-pending".equals(panel.path("title").asString())) {
                expr = panel.path("targets").get(0).path("expr").asString();
            }
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("reason=~\"([^\"]+)\"").matcher(expr);
        assertTrue(m.find(), expr);
        java.lang.reflect.Field field = dev.crifresh.coordinator.classify.NodeClassifier.class
                .getDeclaredField("REBOOT_DOES_NOT_FIX");
        field.setAccessible(true);
        assertEquals(new TreeSet<>((Set<?>) field.get(null)), new TreeSet<>(List.of(m.group(1).split("\\|"))));
    }

    @Test
    void panelIdsAreUniqueAndEveryQueryUsesTheDatasourceVariable() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build()
                .readTree(Files.readString(Chart.SOURCE.resolve("files/dashboards/crifresh.json")));
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels").values()) {
            assertTrue(ids.add(panel.path("id").asInt()), "duplicate panel id " + panel.path("id"));
            for (JsonNode target : panel.path("targets").values()) {
                assertEquals("${datasource}", target.path("datasource").path("uid").asString(), panel.path("title").asString());
            }
        }
        assertEquals("datasource", dashboard.path("templating").path("list").get(0).path("type").asString());
    }

    @Test
    void monitorsAreOffByDefaultAndTheServiceMonitorSelectsTheAgentsWithTheOperatorsLabels() {
        Rendered defaults = Chart.render();
        assertEquals(List.of(), defaults.all("ServiceMonitor"));
        assertEquals(List.of(), defaults.all("PodMonitor"));
        assertEquals(List.of(), defaults.all("PrometheusRule"));
        assertEquals(List.of(), defaults.all("Service"));

        Rendered render = Chart.render("non-default.yaml");
        JsonNode monitor = render.one("ServiceMonitor", "crifresh-agent");
        assertEquals("kube-prometheus-stack", monitor.path("metadata").path("labels").path("release").asString());
        JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
        assertEquals("metrics", endpoint.path("port").asString());
        assertEquals("1m", endpoint.path("interval").asString());
        assertEquals("__meta_kubernetes_pod_node_name", endpoint.path("relabelings").get(0).path("sourceLabels").get(0).asString());
        assertEquals("node", endpoint.path("relabelings").get(0).path("targetLabel").asString());
        JsonNode service = render.one("Service", "crifresh-agent-metrics");
        assertEquals("None", service.path("spec").path("clusterIP").asString());
        assertEquals(AgentDaemonSetTest.textMap(monitor.path("spec").path("selector").path("matchLabels")),
                AgentDaemonSetTest.textMap(service.path("spec").path("selector")));
        Map<String, String> podLabels = AgentDaemonSetTest.textMap(render.one("DaemonSet").path("spec").path("template")
                .path("metadata").path("labels"));
        assertTrue(podLabels.entrySet().containsAll(AgentDaemonSetTest.textMap(service.path("spec").path("selector")).entrySet()));

        JsonNode dashboard = render.one("ConfigMap", "crifresh-dashboard");
        assertEquals("monitoring", dashboard.path("metadata").path("namespace").asString());
        assertEquals("crifresh", dashboard.path("metadata").path("annotations").path("grafana_folder").asString());
    }

    @Test
    void aPodMonitorIsTheAlternativeNotAnAddition() {
        Rendered render = Chart.render(Map.of("metrics.podMonitor.enabled", true, "metrics.podMonitor.labels.release", "prom"));
        JsonNode monitor = render.one("PodMonitor", "crifresh-agent");
        assertEquals("prom", monitor.path("metadata").path("labels").path("release").asString());
        assertEquals("metrics", monitor.path("spec").path("podMetricsEndpoints").get(0).path("port").asString());
        assertEquals(List.of(), render.all("Service"));
        IllegalStateException both = assertThrows(IllegalStateException.class, () -> Chart.render(
                Map.of("metrics.podMonitor.enabled", true, "metrics.serviceMonitor.enabled", true)));
        assertTrue(both.getMessage().contains("not both"), both.getMessage());
    }

    @Test
    void alertsCoverStaleNodesExpiredAttestationsAndApiErrorsWithMetricsThatExist() {
        JsonNode rule = Chart.render("non-default.yaml").one("PrometheusRule", "crifresh");
        List<String> alerts = new ArrayList<>();
        for (JsonNode r : rule.path("spec").path("groups").get(0).path("rules").values()) {
            alerts.add(r.path("alert").asString());
            for (String name : PromQl.metricNames(r.path("expr").asString())) {
                assertTrue(known().contains(name), "unknown metric " + name + " in " + r.path("expr"));
            }
            assertEquals("platform", r.path("labels").path("team").asString());
            assertTrue(r.path("annotations").path("summary").asString().contains("{{ $labels.node }}"));
        }
        assertEquals(List.of("CrifreshNodeNotFresh", "CrifreshAttestationExpired", "CrifreshAgentApiErrors",
                "CrifreshAgentMissing", "CrifreshAgentDown", "CrifreshRequestedProofUnavailable"), alerts);
        JsonNode stale = rule.path("spec").path("groups").get(0).path("rules").get(0);
        assertEquals("2h", stale.path("for").asString());
        assertTrue(stale.path("expr").asString().contains("condition=\"ContainerdConfigFresh\""));
    }

    private static Set<String> missing(Set<String> wanted, Set<String> used) {
        Set<String> out = new TreeSet<>(wanted);
        out.removeAll(used);
        return out;
    }

    private static void collectQueries(JsonNode node, List<String> out) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if ((field.getKey().equals("expr") || field.getKey().equals("definition")) && field.getValue().isString()) {
                    out.add(field.getValue().asString());
                } else {
                    collectQueries(field.getValue(), out);
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node.values()) {
                collectQueries(element, out);
            }
        }
    }
}
