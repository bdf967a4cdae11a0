package dev.crifresh.coordinator.rollout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.StopReason;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole-cluster stop through the real rollout and plan on the mock API: no selected node attesting its current
 * boot stops the run before the first cordon (exit 6); the flag proceeds and reboots them all; one attested node, or
 * a resumed run, is not stopped. Operators' side of the threat model (an installation mistake), and a key not in
 * the trust bundle (a forged attestation) is counted like one.
 */
class NoAttestationsRolloutTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    private void untrusted(String name) throws Exception {
        Node node = h.cluster.node(name);
        AttestationClaims claims = TestAgent.claims(node, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, h.agent.holds(TestAgent.DESIRED));
        TestAgent.publish(h.cluster, name, "True", "ContainerdStartedAfterConfig", "from another key",
                new AttestationSigner(TestAgent.newKey()).sign(claims));
    }

    private void newerAgent(String name) {
        Node node = h.cluster.node(name);
        AttestationClaims claims = TestAgent.claims(node, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, h.agent.holds(TestAgent.DESIRED))
                .withVersion(AttestationClaims.VERSION + 1).withAgent("crifresh-agent/9.9.9");
        TestAgent.publish(h.cluster, name, "True", "ContainerdStartedAfterConfig", "from a newer agent", h.agent.sign(claims));
    }

    @Test
    void noAttestationAnywhereStopsBeforeTheFirstCordonNamingCausesAndTheFlag() throws Exception {
        h.node("w1", false, null, null);
        h.node("w2", false, null, null);
        h.node("w3", false, null, null);
        untrusted("w2");
        newerAgent("w3");

        Report r = h.rollout(Harness.fastSettings());

        assertEquals(StopReason.NO_ATTESTATIONS, r.stop());
        assertEquals(6, r.exitCode());
        assertEquals(Result.FAILED, r.result());
        assertTrue(h.driver.reboots().isEmpty());
        for (String name : List.of("w1", "w2", "w3")) {
            Node n = h.cluster.node(name);
            assertNotEquals(Boolean.TRUE, n.getSpec().getUnschedulable(), name + " was cordoned");
            assertEquals(null, n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
        }
        assertTrue(r.error().contains("(3 nodes): 1 with no ContainerdConfigFresh condition"), r.error());
        assertTrue(r.error().contains("1 with signed by a key not in the trust bundle"), r.error());
        assertTrue(r.error().contains("1 with an unsupported claims version"), r.error());
        assertTrue(r.error().contains("--allow-no-attestations"), r.error());
    }

    @Test
    void planReportsTheSameWithTheSameExitCode() throws Exception {
        h.node("w1", false, null, null);
        newerAgent("w1");
        Report r = h.run(Harness.fastSettings()).plan();
        assertEquals(Result.PLANNED, r.result());
        assertEquals(6, r.exitCode());
        assertTrue(r.error().startsWith("a rollout would stop before the first cordon: no selected node"), r.error());
        assertTrue(r.error().contains("e.g. w1: attestation rejected: the attestation from agent \"crifresh-agent/9.9.9\" has claims version 2;"), r.error());
        assertEquals(0, h.run(Harness.fastSettings().toBuilder().allowNoAttestations(true).build()).plan().exitCode());
    }

    @Test
    void theFlagRebootsThemAllAsBeforeCrifresh() throws Exception {
        h.node("w1", false, null, null);
        h.node("w2", false, null, null);
        Report r = h.rollout(Harness.fastSettings().toBuilder().allowNoAttestations(true).build());
        assertEquals(0, r.exitCode(), String.valueOf(r.error()));
        assertEquals(List.of("w1", "w2"), h.driver.reboots().stream().sorted().toList());
    }

    @Test
    void oneAttestedNodeMeansTheNodesNotTheInstallation() throws Exception {
        h.node("w1", false, null, null);
        h.worker("w2", Verdict.FRESH);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), String.valueOf(r.error()));
        assertEquals(List.of("w1"), h.driver.reboots());
    }

    @Test
    void theSelectedNodesAreJudgedNotTheCluster() throws Exception {
        h.worker("w-fresh", Verdict.FRESH);
        h.node("w-blue", false, null, null);
        h.cluster.mergePatch("w-blue", "{\"metadata\":{\"labels\":{\"pool\":\"blue\"}}}");
        Report r = h.rollout(Harness.fastSettings().toBuilder().nodeSelector("pool=blue").build());
        assertEquals(6, r.exitCode());
        assertTrue(h.driver.reboots().isEmpty());
    }

    @Test
    void aRerunThatResumesIsNotBlocked() throws Exception {
        h.node("w1", false, null, null);
        h.node("w2", false, null, null);
        h.cluster.mergePatch("w1", "{\"spec\":{\"unschedulable\":true},\"metadata\":{\"annotations\":{\""
                + CrifreshAnnotations.ROLLOUT + "\":\"run-old/draining\",\"" + CrifreshAnnotations.CORDONED + "\":\"true\"}}}");
        Report r = h.rollout(Harness.fastSettings());
        assertNotEquals(StopReason.NO_ATTESTATIONS, r.stop(), String.valueOf(r.error()));
        assertEquals(List.of("w1", "w2"), h.driver.reboots().stream().sorted().toList());
    }
}
