package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.rollout.RolloutTest.annotation;
import static dev.crifresh.coordinator.rollout.RolloutTest.assertNothingLeftBehind;
import static dev.crifresh.coordinator.rollout.RolloutTest.cordoned;
import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.mockapi.testing.Poll;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rollout stopped in each phase — killed like a crashed job (its Lease left to expire) or stopped
 * gracefully — and a rerun that resumes from the ownership annotations: nothing rebooted twice,
 * nothing left cordoned.
 */
class ResumeTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    private static CoordinatorSettings rerun() {
        return Harness.fastSettings().toBuilder().lockTimeout(Duration.ofSeconds(15)).build();
    }

    private boolean inPhase(String node, String phase) {
        String v = annotation(h, node, CrifreshAnnotations.ROLLOUT);
        return v != null && v.endsWith("/" + phase);
    }

    @Test
    void killedWhileDrainingTheRerunStartsTheNodeOver() throws Exception {
        h.worker("w0", Verdict.FRESH); // fresh capacity: no seed, so w1 (with the pod) goes first
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        Harness.RolloutRun first = h.run(Harness.fastSettings().toBuilder().drainTimeout(Duration.ofSeconds(30)).build()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 draining", () -> inPhase("w1", "draining") && h.cluster.refusals() > 0);
        first.kill();
        assertTrue(cordoned(h, "w1"));

        h.cluster.server.clearExpectations();
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        Report r = h.run(rerun()).rollout().report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome());
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertFalse(cordoned(h, "w1"), "w1 left cordoned");
        assertNothingLeftBehind(h);
    }

    @Test
    void killedWhileRebootingTheRerunWaitsInsteadOfRebootingAgain() throws Exception {
        h.worker("w1", Verdict.STALE);
        Harness.RolloutRun second = killWhileRebootingAndRerun("w1");
        h.driver.bringBack("w1");
        Report r = second.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(1, h.driver.rebootsOf("w1"), "w1 was rebooted again");
        assertFalse(cordoned(h, "w1"));
        assertNothingLeftBehind(h);
    }

    @Test
    void killedWhileVerifyingTheRerunWaitsForTheAttestation() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.NO_AGENT);
        Harness.RolloutRun first = h.run(Harness.fastSettings()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 verifying", () -> inPhase("w1", "verifying"));
        first.kill();

        Harness.RolloutRun second = h.run(rerun()).rollout();
        second.await(Duration.ofSeconds(15), "the rerun to resume w1", RunEvents.resumed("w1"));
        h.agent.attest(h.cluster, "w1", Verdict.FRESH, dev.crifresh.coordinator.fixture.TestAgent.DESIRED);
        Report r = second.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertNothingLeftBehind(h);
        assertFalse(cordoned(h, "w1"));
    }

    @Test
    void leftoversOfARunStoppedRightAfterCordoningAreFinishedOrReleased() throws Exception {
        String leftover = "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"old-run/draining\",\"crifresh.dev/cordoned\":\"true\"}},"
                + "\"spec\":{\"unschedulable\":true}}";
        h.worker("stale", Verdict.STALE);
        h.cluster.mergePatch("stale", leftover);
        h.worker("fresh", Verdict.FRESH);
        h.cluster.mergePatch("fresh", leftover);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "stale").outcome());
        assertEquals(Outcome.SKIPPED, line(r, "fresh").outcome());
        assertEquals(1, h.driver.rebootsOf("stale"));
        assertEquals(0, h.driver.rebootsOf("fresh"));
        assertFalse(cordoned(h, "stale"), "crifresh's own cordon was not lifted");
        assertFalse(cordoned(h, "fresh"), "crifresh's own cordon was not lifted");
        assertNothingLeftBehind(h);
    }

    private static final String DRAINING_LEFTOVER = "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"old-run/draining\","
            + "\"crifresh.dev/cordoned\":\"true\"}},\"spec\":{\"unschedulable\":true}}";

    @Test
    void aControlPlaneLeftInDrainingWaitsForTheWorkersAndForTheOtherControlPlanes() throws Exception {
        h.controlPlane("cp1", Verdict.STALE);
        h.cluster.mergePatch("cp1", DRAINING_LEFTOVER);
        h.controlPlane("cp2", Verdict.FRESH);
        h.controlPlane("cp3", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.cluster.setReady("cp2", false);
        Harness.RolloutRun run = h.run(Harness.fastSettings().toBuilder().maxUnavailable("2").build()).rollout();
        run.await(Duration.ofSeconds(15), "cp1 to wait for cp2", RunEvents.is(RunEvent.Blocked.class));
        assertEquals(0, h.driver.rebootsOf("cp1"), "cp1 was rebooted while cp2 was not Ready");
        assertFalse(cordoned(h, "cp1"), "cp1 stayed cordoned while it waited");
        h.cluster.setReady("cp2", true);
        Report r = run.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(java.util.List.of("w1", "cp1"), r.rebootOrder());
        assertEquals(1, h.driver.rebootsOf("cp1"));
        assertNothingLeftBehind(h);
    }

    @Test
    void workersLeftInDrainingShareTheBudgetWithoutDeadlocking() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.mergePatch("w1", DRAINING_LEFTOVER);
        h.cluster.mergePatch("w2", DRAINING_LEFTOVER);
        try (dev.crifresh.coordinator.fixture.Timeline timeline = new dev.crifresh.coordinator.fixture.Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings());
            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(1, h.driver.rebootsOf("w1"));
            assertEquals(1, h.driver.rebootsOf("w2"));
            assertTrue(timeline.maxUnavailable() <= 1, "more than 1 unavailable: " + timeline.unavailableSets());
        }
        assertFalse(cordoned(h, "w1"));
        assertFalse(cordoned(h, "w2"));
        assertNothingLeftBehind(h);
    }

    @Test
    void aResumedNodeStillStaleAfterItsRebootIsNotRebootedAgainOutsideTheBudget() throws Exception {
        h.worker("w1", Verdict.STALE);
        Harness.RolloutRun second = killWhileRebootingAndRerun("w1");
        h.cluster.setBootId("w1", java.util.UUID.randomUUID().toString());
        h.cluster.setReady("w1", true);
        h.agent.attest(h.cluster, "w1", Verdict.STALE, dev.crifresh.coordinator.fixture.TestAgent.DESIRED);
        Report r = second.report();
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome());
        assertTrue(line(r, "w1").detail().contains("not rebooted again by this run"), line(r, "w1").detail());
        assertEquals(1, h.driver.rebootsOf("w1"), "the resumed node was rebooted again outside the budget");
        assertTrue(cordoned(h, "w1"));
        assertTrue(inPhase("w1", "draining"));

        // A rerun reboots it through the normal scheduling.
        h.driver.behave("w1", Behaviour.RETURNS_FRESH);
        Report third = h.rollout(rerun());
        assertEquals(0, third.exitCode(), third.toJson());
        assertEquals(2, h.driver.rebootsOf("w1"));
        assertFalse(cordoned(h, "w1"));
        assertNothingLeftBehind(h);
    }

    private static String leftover(String ownership, String bootId) {
        return "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"" + ownership + "\",\"crifresh.dev/cordoned\":\"true\""
                + (bootId == null ? "" : ",\"crifresh.dev/boot-id\":\"" + bootId + "\"") + "}},\"spec\":{\"unschedulable\":true}}";
    }

    private void assertLeftForAManualCheck(Report r, String node) {
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, node).outcome(), line(r, node).detail());
        assertTrue(line(r, node).detail().contains("whether its reboot happened cannot be told"), line(r, node).detail());
        assertEquals(0, h.driver.rebootsOf(node));
        assertTrue(cordoned(h, node), "released although nobody knows whether it rebooted");
        assertTrue(annotation(h, node, CrifreshAnnotations.ROLLOUT) != null);
    }

    @Test
    void aLeftoverRebootingWithoutABootIdIsNotReportedRebootedOnItsCurrentBoot() throws Exception {
        // Fresh from its current boot: without the boot id before, no one can tell whether a reboot happened.
        h.worker("w1", Verdict.FRESH);
        h.cluster.mergePatch("w1", leftover("old-run/rebooting", null));
        Report r = h.rollout(Harness.fastSettings());
        assertLeftForAManualCheck(r, "w1");
        assertTrue(line(r, "w1").detail().contains("phase rebooting without crifresh.dev/boot-id"), line(r, "w1").detail());
    }

    @Test
    void aLeftoverWithAnUnreadablePhaseIsLeftForAManualCheck() throws Exception {
        h.worker("w1", Verdict.STALE);
        String boot = h.cluster.node("w1").getStatus().getNodeInfo().getBootID();
        h.cluster.mergePatch("w1", leftover("old-run/exploding", boot));
        Report r = h.rollout(Harness.fastSettings());
        assertLeftForAManualCheck(r, "w1");
        assertTrue(line(r, "w1").detail().contains("unreadable crifresh.dev/rollout value 'old-run/exploding'"), line(r, "w1").detail());
    }

    @Test
    void aGracefulStopLeavesTheNodeForARerunAndReleasesTheLease() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        Harness.RolloutRun first = h.run(Harness.fastSettings().toBuilder().drainTimeout(Duration.ofSeconds(30)).build()).rollout();
        Poll.until(Duration.ofSeconds(15), "w1 draining", () -> inPhase("w1", "draining") && h.cluster.refusals() > 0);
        first.coordinator.stop();
        Report stopped = first.report();
        assertEquals(StopReason.INTERRUPTED, stopped.stop());
        assertEquals(1, stopped.exitCode());
        assertEquals(Outcome.FAILED, line(stopped, "w1").outcome());
        assertTrue(line(stopped, "w1").detail().contains("interrupted while draining"), line(stopped, "w1").detail());
        assertNull(h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get().getSpec().getHolderIdentity());
        assertTrue(cordoned(h, "w1"));

        h.cluster.server.clearExpectations();
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertFalse(cordoned(h, "w1"));
        assertNothingLeftBehind(h);
    }

    /** The first run is killed while {@code node} reboots; returns the rerun once it resumed the node. */
    private Harness.RolloutRun killWhileRebootingAndRerun(String node) throws Exception {
        h.driver.behave(node, Behaviour.HOLD);
        Harness.RolloutRun first = h.run(Harness.fastSettings()).rollout();
        Poll.until(Duration.ofSeconds(15), node + " rebooting",
                () -> h.driver.rebootsOf(node) == 1 && inPhase(node, "rebooting"));
        first.kill();
        Harness.RolloutRun second = h.run(rerun()).rollout();
        second.await(Duration.ofSeconds(15), "the rerun to resume " + node, RunEvents.resumed(node));
        return second;
    }
}
