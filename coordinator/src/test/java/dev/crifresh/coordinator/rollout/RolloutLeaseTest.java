package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.rollout.RolloutTest.cordoned;
import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.StopReason;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The rollout Lease on the mock API server: waiting for it, taking over an expired one, losing it. */
class RolloutLeaseTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aSecondRolloutWaitsForTheLockThenGivesUpWithExit4() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun first = h.run(Harness.fastSettings()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 to be rebooting", () -> h.driver.rebootsOf("w1") == 1);
        Report second = h.run(Harness.fastSettings().toBuilder().lockTimeout(Duration.ofMillis(300)).build()).rollout().report();
        assertEquals(4, second.exitCode(), second.toJson());
        assertEquals(StopReason.LOCK_NOT_ACQUIRED, second.stop());
        assertTrue(second.error().contains("held by run-"), second.error());
        assertEquals(Outcome.NOT_ATTEMPTED, line(second, "w1").outcome());
        assertEquals(NodeVerdict.STALE, line(second, "w1").verdict());
        h.driver.bringBack("w1");
        Report r = first.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"));
        Lease lease = h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get();
        assertNull(lease.getSpec().getHolderIdentity(), "the lease was not released");
    }

    @Test
    void anExpiredLeaseIsTakenOver() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.test.leases().inNamespace("crifresh").resource(new LeaseBuilder().withNewMetadata().withName("crifresh-rollout")
                .withNamespace("crifresh").endMetadata().withNewSpec().withHolderIdentity("crashed-run").withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.now().minusMinutes(5)).endSpec().build()).create();
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        Lease lease = h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get();
        assertEquals(1, lease.getSpec().getLeaseTransitions());
    }

    @Test
    void aLiveLeaseHeldByAnotherRunIsNotTaken() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.test.leases().inNamespace("crifresh").resource(new LeaseBuilder().withNewMetadata().withName("crifresh-rollout")
                .withNamespace("crifresh").endMetadata().withNewSpec().withHolderIdentity("other-run").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().lockTimeout(Duration.ofMillis(200)).build());
            assertEquals(4, r.exitCode());
            assertTrue(r.error().contains("other-run"), r.error());
            assertTrue(timeline.cordonOrder().isEmpty());
        }
        assertEquals("other-run", h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get().getSpec().getHolderIdentity());
    }

    @Test
    void aSecondProcessWithTheSameRunIdDoesNotShareTheLease() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun first = h.run(Harness.fastSettings().toBuilder().runId("ci-run-7").build()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 rebooting", () -> h.driver.rebootsOf("w1") == 1);
        Report second = h.run(Harness.fastSettings().toBuilder().runId("ci-run-7").lockTimeout(Duration.ofMillis(300)).build()).rollout().report();
        assertEquals(StopReason.LOCK_NOT_ACQUIRED, second.stop(), second.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"));
        h.driver.bringBack("w1");
        assertEquals(0, first.report().exitCode());
    }

    @Test
    void aLostLeaseEndsTheRunAtOnceAndLeavesTheNodeInProgressForTheNextRun() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun run = h.run(Harness.fastSettings()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 rebooting", () -> h.driver.rebootsOf("w1") == 1);
        var leases = h.cluster.test.leases().inNamespace("crifresh");
        Poll.until(Duration.ofSeconds(15), "the intruder's takeover", () -> {
            Lease taken = new LeaseBuilder(leases.withName("crifresh-rollout").get()).editSpec()
                    .withHolderIdentity("intruder").withRenewTime(ZonedDateTime.now()).endSpec().build();
            try {
                leases.resource(taken).update();
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return false; // the coordinator renewed between our read and write: read again
                }
                throw e;
            }
        });
        run.await(Duration.ofSeconds(15), "the coordinator to notice", RunEvents.lockLost());
        Report r = run.report(); // at once: w1 is still down
        h.driver.bringBack("w1");
        assertEquals(4, r.exitCode(), r.toJson());
        assertEquals(StopReason.LOCK_LOST, r.stop());
        assertTrue(r.toJson().contains("\"result\" : \"lease-lost\""), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome());
        assertTrue(line(r, "w1").detail().contains("the rollout lock was lost while returning"), line(r, "w1").detail());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
        assertEquals(0, h.driver.rebootsOf("w2"));
        assertFalse(cordoned(h, "w2"));
        // No side effect after the loss: w1 keeps its cordon and ownership for the next run to resume.
        Poll.until(Duration.ofSeconds(15), "w1 back", () -> h.cluster.node("w1").getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())));
        assertTrue(cordoned(h, "w1"), "uncordoned after the Lease was lost");
        assertEquals(run.coordinator.settings().lease().runId() + "/rebooting",
                h.cluster.node("w1").getMetadata().getAnnotations().get("crifresh.dev/rollout"));
        assertEquals("intruder", leases.withName("crifresh-rollout").get().getSpec().getHolderIdentity(), "released someone else's lease");
    }
}
