package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every expression of the chart's Grafana dashboard evaluated by the real Prometheus (Debian's 2.42,
 * {@code /usr/bin/prometheus}) that scrapes the real agents of {@code crifresh-sim serve} through its file_sd
 * targets file, after a credential rotation has made every agent evaluate, publish and observe a detection
 * latency. Panels fed by the agents must return series with the labels the panel shows, for exactly the nodes
 * whose agent runs. kube-state-metrics cannot run here (it needs a real API server's informers for every
 * resource kind); its expressions, like the Pushgateway-fed coordinator panels, must parse and evaluate, and
 * come back empty.
 */
class DashboardUnderPrometheusIT {
    private static final Path DASHBOARD = ServeProcess.REPO.resolve("charts/crifresh/files/dashboards/crifresh.json");
    private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    private static final String RATE_INTERVAL = "1m";
    /** The nodes whose agent runs: worker-c's agent hung in the demo scenario (its target answers 503). */
    private static final Set<String> LIVE = Set.of("cp-1", "worker-a", "worker-b", "worker-d", "worker-e", "worker-f");
    /** Label names of each agent-fed query's series, by "panel title/refId". */
    private static final Map<String, Set<String>> AGENT_LABELS = Map.ofEntries(
            Map.entry("Earliest attestation expiry/A", Set.of()),
            Map.entry("Agent verdict per node/A", Set.of("node")),
            Map.entry("Nodes/B", Set.of("node")),
            Map.entry("Nodes/C", Set.of("node", "reason")),
            Map.entry("Nodes/D", Set.of("node")),
            Map.entry("Nodes/E", Set.of("node")),
            Map.entry("Nodes/F", Set.of("node")),
            Map.entry("Publishes by result/A", Set.of("result")),
            Map.entry("API errors by operation/A", Set.of("operation")),
            Map.entry("Evaluations by verdict and reason/A", Set.of("verdict", "reason")),
            Map.entry("Detection latency (config change seen -> condition written)/A", Set.of()),
            Map.entry("Detection latency (config change seen -> condition written)/B", Set.of()),
            Map.entry("Detection latency (config change seen -> condition written)/C", Set.of()),
            Map.entry("Config changes/A", Set.of("node")),
            Map.entry("crifresh versions running/A", Set.of()),
            Map.entry("Claims versions written/A", Set.of()),
            Map.entry("Versions/A", Set.of("component", "version", "claims_version")),
            Map.entry("Heartbeat age per node/A", Set.of("node")),
            Map.entry("Heartbeat age per node/B", Set.of()));
    /**
     * Agent series that exist only while a run holds a node, an agent is hung with its target up, or a config needs
     * an operator's fix: none of these happens in the demo scenario without a rollout.
     */
    private static final Set<String> ONLY_AROUND_A_RUN = Set.of("Config-pending/A", "Agents heartbeat late/A",
            "Nodes held by a run/A", "Runs seen and where their nodes are now/A", "Nodes held now/A", "Nodes held now/B",
            "Nodes held now/C", "Nodes per run over time/A");
    /** Agent counters that exist only once something failed: in a healthy simulation they have no series. */
    private static final Set<String> ONLY_ON_FAILURE = Set.of("API errors by operation/A");
    /** Series an agent has only when it was asked for a proof (agent.criSocket); the simulated agents ask for none. */
    private static final Set<String> ONLY_WHEN_A_PROOF_IS_REQUESTED = Set.of("Agent verdict per node/B",
            "Evaluations by verdict and reason/B");

    @TempDir
    Path work;
    private ServeProcess serve;
    private Process prometheus;
    private final HttpClient http = HttpClient.newHttpClient();
    private final JsonMapper json = JsonMapper.builder().build();
    private String url;

    @AfterEach
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(30, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
        }
        if (serve != null) {
            serve.close();
        }
    }

    @Test
    void everyDashboardExpressionEvaluatesAndTheAgentPanelsShowEveryLiveNode() throws Exception {
        ServeProcess.requirePackagedJars();
        if (!Files.isExecutable(PROMETHEUS)) {
            String why = PROMETHEUS + " is missing (Debian: apt-get install prometheus; .ci/run installs it)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why);
            }
            Assumptions.abort(why);
        }
        serve = ServeProcess.start(work);
        startPrometheus(serve.targets());

        Poll.until(Duration.ofMinutes(2), "Prometheus to scrape the six live agents",
                () -> scalar("count(crifresh_node_fresh)") == LIVE.size());
        // The hung agent's scrape ends only at the scrape timeout, after the live agents' scrapes: until then it has no
        // `up` series at all.
        Poll.until(Duration.ofMinutes(1), "the hung agent's target to be scraped as down",
                () -> scalar("max(up{node=\"worker-c\"})") == 0.0);

        rotate();
        Poll.until(Duration.ofMinutes(3), "every live agent's config change and its detection latency to be scraped",
                () -> scalar("count(max by (node) (changes(crifresh_config_mtime_timestamp_seconds[" + RATE_INTERVAL + "])) > 0)") == LIVE.size()
                        && scalar("sum(increase(crifresh_detection_latency_seconds_count[" + RATE_INTERVAL + "]))") > 0);

        JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
        List<String> checked = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels").values()) {
            for (JsonNode target : panel.path("targets").values()) {
                String key = panel.path("title").asString() + "/" + target.path("refId").asString();
                String expr = target.path("expr").asString();
                JsonNode result = query(grafana(expr), key);
                Set<Set<String>> labelSets = new java.util.HashSet<>();
                Set<String> nodes = new TreeSet<>();
                for (JsonNode series : result.values()) {
                    Set<String> names = new TreeSet<>();
                    series.path("metric").propertyNames().forEach(names::add);
                    labelSets.add(names);
                    if (series.path("metric").has("node")) {
                        nodes.add(series.path("metric").path("node").asString());
                    }
                }
                if (expr.contains("kube_") || expr.contains("crifresh_rollout_")) {
                    // no kube-state-metrics, no Pushgateway here: parsed and evaluated, nothing to show
                    assertEquals(0, result.size(), key + ": " + result);
                } else if (ONLY_AROUND_A_RUN.contains(key)) {
                    assertEquals(0, result.size(), key + ": " + result);
                } else if (ONLY_WHEN_A_PROOF_IS_REQUESTED.contains(key)) {
                    assertEquals(0, result.size(), key + ": " + result);
                    assertEquals(0.0, scalar("count(crifresh_requested_proof_applies) or vector(0)"), key);
                } else if (ONLY_ON_FAILURE.contains(key) && result.isEmpty()) {
                    assertEquals(0.0, scalar("count(crifresh_api_errors_total) or vector(0)"), key);
                } else {
                    assertTrue(AGENT_LABELS.containsKey(key), "an agent panel without expected labels in this test: " + key);
                    assertFalse(result.isEmpty(), key + " returned no series: " + expr);
                    assertEquals(Set.of(AGENT_LABELS.get(key)), labelSets, key + ": " + result);
                    if (AGENT_LABELS.get(key).contains("node")) {
                        assertEquals(new TreeSet<>(LIVE), nodes, key + ": " + result);
                    }
                }
                checked.add(key);
            }
        }
        assertTrue(checked.containsAll(AGENT_LABELS.keySet()), "panels gone from the dashboard: " + checked);
        assertTrue(checked.size() >= 20, checked.toString());
    }

    /**
     * What Grafana sends for "All" nodes, its $__rate_interval (at least four 1 s scrapes; a minute here) and its
     * $__range (the dashboard's time range as seconds; its default, the last hour).
     */
    private static String grafana(String expr) {
        return expr.replace("$__rate_interval", RATE_INTERVAL).replace("$__range", "3600s").replace("$node", ".*");
    }

    private void startPrometheus(Path targets) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path config = work.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: crifresh-agent
                    file_sd_configs:
                      - files: [%s]
                        refresh_interval: 5s
                """.formatted(targets));
        Path log = work.resolve("prometheus.log");
        prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        url = "http://127.0.0.1:" + port;
        Poll.until(Duration.ofMinutes(2), "Prometheus to be ready", () -> !prometheus.isAlive() || ready());
        if (!prometheus.isAlive()) {
            fail("Prometheus exited: " + Files.readString(log));
        }
    }

    private boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url + "/-/ready")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void rotate() throws Exception {
        Process p = new ProcessBuilder(ServeProcess.java(), "-jar", ServeProcess.SIM_JAR.toString(), "rotate",
                "--credential", "deploy-bot:token-v4", "--kubeconfig", serve.kubeconfig().toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("rotate.out").toFile()).start();
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), "rotate did not finish");
        assertEquals(0, p.exitValue(), Files.readString(work.resolve("rotate.out")));
    }

    /** An instant query's {@code data.result}; the query must parse and evaluate. */
    private JsonNode query(String expr, String what) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/query?query="
                + URLEncoder.encode(expr, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(r.body());
        assertEquals(200, r.statusCode(), what + ": " + expr + " -> " + r.body());
        assertEquals("success", body.path("status").asString(), what + ": " + r.body());
        JsonNode data = body.path("data");
        if (!"vector".equals(data.path("resultType").asString())) {
            throw new AssertionError(what + ": not an instant vector: " + r.body());
        }
        return data.path("result");
    }

    /** A single-valued query's value, NaN when it has no series (or cannot be asked yet). */
    private double scalar(String expr) {
        try {
            JsonNode result = query(expr, expr);
            return result.isEmpty() ? Double.NaN : Double.parseDouble(result.get(0).path("value").get(1).asString());
        } catch (Exception e) {
            return Double.NaN;
        }
    }
}
