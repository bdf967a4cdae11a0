package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The metric names the dashboard and the alerts are checked against are the ones the real agent
 * exposes: feed the agent's metrics every kind of event and read its Prometheus exposition.
 */
class AgentMetricsContractTest {

    @Test
    void theAgentExposesEveryMetricTheDashboardCountsOn() {
        AgentMetrics metrics = new AgentMetrics();
        Instant now = Instant.now();
        for (Reason reason : Reason.values()) {
            metrics.evaluated(new Evaluation(reason.verdict(), reason, Proof.NONE, "test", null, now.minusSeconds(60), null, null),
                    List.of(WatchedFile.readable("/etc/cri/containerd.toml", now.minusSeconds(120), 10, "00")));
        }
        metrics.heartbeatInterval(Duration.ofMinutes(5));
        metrics.publishSucceeded(now, now.plusSeconds(900));
        metrics.publishFailed("conflict");
        metrics.nodeSeen(new dev.crifresh.agent.http.RolloutMarks("r1", "rebooting", "r1", true));
        metrics.apiError("patch");
        metrics.detectionLatency(Duration.ofMillis(120));
        metrics.proofRequested("runtime-status", new dev.crifresh.agent.loop.ProofFallback("runtime-status", "ordering",
                "the CRI status config has no registry section"));

        Set<String> exposed = new TreeSet<>();
        for (String line : metrics.registry().scrape().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                exposed.add(line.split("[{ ]", 2)[0]);
            }
        }
        Set<String> missing = new TreeSet<>(ObservabilityTest.AGENT_METRICS);
        missing.removeAll(exposed);
        assertTrue(missing.isEmpty(), "the dashboard reads " + missing + " but the agent exposes " + exposed);
    }
}
