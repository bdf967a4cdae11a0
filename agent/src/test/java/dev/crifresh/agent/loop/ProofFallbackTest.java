package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuntimeAuth;
import dev.crifresh.common.evidence.Verdict;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No silent fallback: a requested runtime-status proof that does not apply is named in the message (which is the
 * condition's message), and in the metrics; one that applied or decided is not. (observe's {@code proofFallback}
 * on the real containerd 2.1 and 1.6: the reality suite's IntrospectionRealityTest.)
 */
class ProofFallbackTest {
    private static final Evaluation FRESH = new Evaluation(Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
            Proof.ORDERING, "containerd (pid 42) started 3 s after the newest config change",
            new ProcessSample(42, 250, List.of("/bin/containerd")), Instant.parse("2025-03-01T10:00:02.5Z"),
            "sha256:ab", null);

    @Test
    void anUnavailableRuntimeStatusIsNamedWithTheProofUsedInstead() {
        ProofFallback f = ProofFallback.of(new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE,
                "the CRI status config has no registry section"), FRESH);
        assertEquals(new ProofFallback("runtime-status", "ordering", "the CRI status config has no registry section"), f);
        Evaluation said = f.applyTo(FRESH);
        assertEquals(FRESH.message() + " (the requested runtime-status proof does not apply: the CRI status config has"
                + " no registry section; proof used instead: ordering)", said.message());
        assertEquals(FRESH.verdict(), said.verdict());
        assertEquals(FRESH.proof(), said.proof());
        assertEquals(FRESH.memory(), said.memory());
    }

    @Test
    void aRuntimeStatusThatDecidedIsNoFallback() {
        assertNull(ProofFallback.of(new RuntimeAuth(RuntimeAuth.State.SAME, "CRI status, 1 registry"), FRESH));
        assertNull(ProofFallback.of(new RuntimeAuth(RuntimeAuth.State.DIFFERENT, "CRI status: registry ghcr.io"), FRESH));
    }

    @Test
    void theMetricsSayWhetherTheRequestedProofApplied() {
        AgentMetrics m = new AgentMetrics();
        m.proofRequested(ProofFallback.RUNTIME_STATUS, null);
        assertTrue(scrape(m).contains("crifresh_requested_proof_applies{requested=\"runtime-status\"} 1.0"), scrape(m));
        m.proofRequested(ProofFallback.RUNTIME_STATUS, new ProofFallback("runtime-status", "ordering", "no registry section"));
        m.proofRequested(ProofFallback.RUNTIME_STATUS, new ProofFallback("runtime-status", "none", "no registry section"));
        String text = scrape(m);
        assertTrue(text.contains("crifresh_requested_proof_applies{requested=\"runtime-status\"} 0.0"), text);
        assertTrue(text.contains("crifresh_proof_fallbacks_total{requested=\"runtime-status\",used=\"ordering\"} 1.0"), text);
        assertTrue(text.contains("crifresh_proof_fallbacks_total{requested=\"runtime-status\",used=\"none\"} 1.0"), text);
    }

    private static String scrape(AgentMetrics m) {
        return m.registry().scrape();
    }
}
