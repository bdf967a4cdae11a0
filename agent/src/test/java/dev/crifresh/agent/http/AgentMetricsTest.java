package dev.crifresh.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {
    private static final Instant START = Instant.parse("2025-03-01T10:00:02.5Z");
    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)(\\{[^}]*})? (\\S+)", Pattern.MULTILINE);

    static Evaluation evaluation(Verdict verdict, Reason reason) {
        return new Evaluation(verdict, reason, verdict == Verdict.FRESH ? Proof.ORDERING : Proof.NONE, "sentence.",
                new ProcessSample(42, 250, List.of("/bin/containerd")), START, "sha256:ab", null);
    }

    @Test
    void exposesExactlyTheContractNames() {
        AgentMetrics m = new AgentMetrics();
        m.evaluated(evaluation(Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG), List.of(
                WatchedFile.readable("/etc/cri/containerd.toml", Instant.ofEpochSecond(1_740_823_200), 10, "aa"),
                WatchedFile.unreadable("/etc/cri/conf.d/cri.toml", "no such file")));
        m.heartbeatInterval(Duration.ofMinutes(5));
        m.publishSucceeded(Instant.ofEpochSecond(1_740_823_200), Instant.ofEpochSecond(1_740_824_100));
        m.publishFailed("conflict");
        m.apiError("patch");
        m.detectionLatency(Duration.ofMillis(300));
        String text = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);

        Set<String> families = new TreeSet<>();
        Matcher s = SAMPLE.matcher(text);
        while (s.find()) {
            families.add(s.group(1).replaceAll("_(bucket|count|sum|max)$", ""));
        }
        assertEquals(new TreeSet<>(List.of("crifresh_node_fresh", "crifresh_containerd_start_timestamp_seconds",
                "crifresh_config_mtime_timestamp_seconds", "crifresh_attestation_expiry_timestamp_seconds",
                "crifresh_publishes_total", "crifresh_evaluations_total", "crifresh_api_errors_total",
                "crifresh_detection_latency_seconds", "crifresh_heartbeat_timestamp_seconds",
                "crifresh_heartbeat_interval_seconds", "crifresh_build_info",
                "crifresh_node_reboot_not_carried_out", "crifresh_node_reason")), families, text);
        assertTrue(text.contains("crifresh_node_reason{reason=\"ContainerdStartedAfterConfig\",verdict=\"fresh\"} 1.0"), text);

        assertTrue(text.contains("crifresh_node_fresh 1.0"), text);
        assertTrue(text.contains("crifresh_containerd_start_timestamp_seconds 1.7408232025E9"), text);
        assertTrue(text.contains("crifresh_config_mtime_timestamp_seconds{path=\"/etc/cri/containerd.toml\"} 1.7408232E9"), text);
        assertFalse(text.contains("path=\"/etc/cri/conf.d/cri.toml\""), text);
        assertTrue(text.contains("crifresh_attestation_expiry_timestamp_seconds 1.7408241E9"), text);
        assertTrue(text.contains("crifresh_publishes_total{result=\"success\"} 1.0"), text);
        assertTrue(text.contains("crifresh_publishes_total{result=\"conflict\"} 1.0"), text);
        assertTrue(text.contains("crifresh_publishes_total{result=\"error\"} 0.0"), text);
        assertTrue(text.contains(
                "crifresh_evaluations_total{reason=\"ContainerdStartedAfterConfig\",verdict=\"fresh\"} 1.0"), text);
        assertTrue(text.contains("crifresh_api_errors_total{operation=\"patch\"} 1.0"), text);
        assertTrue(text.contains("crifresh_detection_latency_seconds_bucket{le=\"0.5\"} 1"), text);
        assertTrue(text.contains("crifresh_detection_latency_seconds_count 1"), text);
        assertTrue(text.contains("crifresh_heartbeat_timestamp_seconds 1.7408232E9"), text);
        assertTrue(text.contains("crifresh_heartbeat_interval_seconds 300.0"), text);
        assertTrue(text.contains("crifresh_build_info{claims_version=\"" + AttestationClaims.VERSION
                + "\",component=\"agent\",version=\"" + CrifreshVersion.current() + "\"} 1"), text);
    }

    @Test
    void theHeartbeatIsTheLastWriteWithOrWithoutAnAttestation() {
        AgentMetrics m = new AgentMetrics();
        String before = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertTrue(before.contains("crifresh_heartbeat_timestamp_seconds NaN"), before);
        m.publishSucceeded(Instant.ofEpochSecond(1_000), Instant.ofEpochSecond(1_900));
        m.publishedWithoutAttestation(Instant.ofEpochSecond(2_000));
        String text = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertTrue(text.contains("crifresh_heartbeat_timestamp_seconds 2000.0"), text);
        assertTrue(text.contains("crifresh_attestation_expiry_timestamp_seconds 1900.0"), text);
    }

    @Test
    void freshGaugeFollowsTheVerdictAndMtimeGaugesFollowTheFiles() {
        AgentMetrics m = new AgentMetrics();
        String before = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertTrue(before.contains("crifresh_node_fresh -1.0"), "unknown before the first evaluation");
        m.evaluated(evaluation(Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START),
                List.of(WatchedFile.readable("/a.part", Instant.ofEpochSecond(100), 1, "aa")));
        assertTrue(m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE).contains("crifresh_node_fresh 0.0"));
        m.evaluated(evaluation(Verdict.UNKNOWN, Reason.CONTAINERD_NOT_FOUND),
                List.of(WatchedFile.readable("/b.part", Instant.ofEpochSecond(200), 1, "bb")));
        String after = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertTrue(after.contains("crifresh_node_reason{reason=\"ContainerdNotFound\",verdict=\"unknown\"} 1.0"), after);
        assertFalse(after.contains("crifresh_node_reason{reason=\"ConfigChangedAfterContainerdStart\""),
                "one reason at a time: " + after);
        assertTrue(after.contains("crifresh_node_fresh -1.0"), after);
        assertFalse(after.contains("/a.part"), "gauge of a file that is gone must go: " + after);
        assertTrue(after.contains("crifresh_config_mtime_timestamp_seconds{path=\"/b.part\"} 200.0"), after);
    }

    @Test
    void openMetricsKeepsTheSameFamilies() {
        AgentMetrics m = new AgentMetrics();
        m.publishFailed("error");
        String om = m.registry().scrape(AgentHttpServer.OPENMETRICS_CONTENT_TYPE);
        assertTrue(om.contains("# TYPE crifresh_publishes counter"), om);
        assertTrue(om.contains("crifresh_publishes_total{result=\"error\"} 1.0"), om);
        assertTrue(om.trim().endsWith("# EOF"), om);
    }
}
