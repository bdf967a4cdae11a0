package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Report;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose agent says stale for a reason a reboot cannot fix (the files spell the credential where no pull sends
 * it) is config-pending through the real rollout: never rebooted, even holding the desired fingerprint, and the report
 * names the agent's reason. Operators' side of the threat model (a config mistake).
 */
class ConfigProblemRolloutTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aStaleNoRebootFixesWaitsForTheConfigAndIsNeverRebooted() throws Exception {
        h.worker("w-fresh", Verdict.FRESH);
        h.cluster.addNode("w-hosts", false, "10.0.0.99");
        Node node = h.cluster.node("w-hosts");
        TestAgent.publish(h.cluster, "w-hosts", Verdict.STALE.conditionStatus(), Reason.HOSTS_TOML_REDIRECTS_PULLS.code(),
                "hosts.toml sends ghcr.io's pulls elsewhere; a reboot will not fix it",
                h.agent.sign(TestAgent.claims(node, Verdict.STALE, Reason.HOSTS_TOML_REDIRECTS_PULLS, h.agent.holds(TestAgent.DESIRED))));

        Report r = h.rollout(Harness.fastSettings().toBuilder().configTimeout(Duration.ofSeconds(2)).build());

        assertEquals(3, r.exitCode(), String.valueOf(r.error()));
        assertEquals(List.of(), h.driver.reboots());
        NodeReport w = line(r, "w-hosts");
        assertEquals(NodeVerdict.CONFIG_PENDING, w.verdict());
        assertEquals("HostsTomlRedirectsPulls", w.reason());
        assertTrue(w.detail().contains("a reboot will not fix this"), w.detail());
    }
}
