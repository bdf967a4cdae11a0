package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.mockapi.testing.Poll;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Point 5 of the rollout hardening: nodes that join while a run is under way (an autoscaler's scale-out)
 * are classified and handled before the run ends, and the run ends only after a final read of the nodes.
 * A joiner is added while the run holds another node's reboot, so the run is certainly under way.
 */
class JoinedNodesTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    /** The harness's settings with a Lease that a loaded 2-core machine cannot let expire by a late renewal. */
    private static dev.crifresh.coordinator.base.CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(15)).build();
    }

    /** Starts a run that holds w1's reboot; returns once w1 is rebooting. */
    private Harness.RolloutRun holdingW1(Duration attestTimeout) {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun run = h.run(settings().toBuilder().attestTimeout(attestTimeout).build()).rollout();
        Poll.until(Duration.ofSeconds(20), "w1 rebooting", () -> h.driver.rebootsOf("w1") == 1);
        return run;
    }

    @Test
    void aJoinerIsWaitedForUntilItAttestsAndSkippedWhenFresh() throws Exception {
        Harness.RolloutRun run = holdingW1(Duration.ofSeconds(20));
        h.node("w-new", false, null, null); // joins without an attestation: its agent is still starting
        run.await(Duration.ofSeconds(20), "the join noticed", RunEvents.joined("w-new"));
        Thread.sleep(300); // unattested for a while: it must not be rebooted as unknown
        h.agent.attest(h.cluster, "w-new", Verdict.FRESH, dev.crifresh.coordinator.fixture.TestAgent.DESIRED);
        h.driver.bringBack("w1");
        Report r = run.report();
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(Outcome.SKIPPED, line(r, "w-new").outcome());
        assertEquals(NodeVerdict.FRESH, line(r, "w-new").verdict());
        assertTrue(line(r, "w-new").detail().startsWith("joined during the run; "), line(r, "w-new").detail());
        assertEquals(List.of("w-new"), r.joinedDuringRun());
        assertEquals(List.of("w1"), h.driver.reboots());
        assertTrue(h.progress.stream().anyMatch(l -> l.startsWith("final inventory: 3 selected node(s)")), String.join("\n", h.progress));
        assertTrue(r.toJson().contains("\"joinedDuringRun\" : [ \"w-new\" ]"), r.toJson());
    }

    @Test
    void aStaleJoinerIsRolledBeforeTheRunEnds() throws Exception {
        Harness.RolloutRun run = holdingW1(Duration.ofSeconds(20));
        h.worker("w-new", Verdict.STALE);
        run.await(Duration.ofSeconds(20), "the join decided", RunEvents.joinedDecided("w-new"));
        h.driver.bringBack("w1");
        Report r = run.report();
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w-new").outcome());
        assertEquals(List.of("w1", "w-new"), r.rebootOrder());
        assertEquals(1, h.driver.rebootsOf("w-new"));
        RolloutTest.assertNothingLeftBehind(h);
        List<String> reasons = h.cluster.test.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals("w-new")).map(e -> e.getReason()).toList();
        assertTrue(reasons.contains("CrifreshJoined") && reasons.contains("CrifreshFresh"), reasons.toString());
    }

    @Test
    void aJoinerThatNeverAttestsIsRebootedAsUnknownAfterTheAttestTimeout() throws Exception {
        Harness.RolloutRun run = holdingW1(Duration.ofSeconds(5));
        h.node("w-silent", false, null, null);
        run.await(Duration.ofSeconds(20), "the joiner decided", RunEvents.joinedDecided("w-silent"));
        assertEquals(0, h.driver.rebootsOf("w-silent"), "rolled only after w1's reboot: the budget is 1");
        h.driver.bringBack("w1");
        Report r = run.report();
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(NodeVerdict.UNKNOWN, line(r, "w-silent").verdict());
        assertEquals(Outcome.REBOOTED, line(r, "w-silent").outcome());
    }

    @Test
    void aJoinerStillUnattestedWhenTheRunStopsIsReportedNotAttempted() throws Exception {
        Harness.RolloutRun run = holdingW1(Duration.ofSeconds(20));
        h.node("w-late", false, null, null);
        run.await(Duration.ofSeconds(20), "the join noticed", RunEvents.joined("w-late"));
        run.coordinator.stop();
        Report r = run.report();
        assertEquals(Result.FAILED, r.result(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w-late").outcome());
        assertTrue(line(r, "w-late").detail().startsWith("joined during the run; not attempted"), line(r, "w-late").detail());
        assertEquals(List.of("w-late"), r.joinedDuringRun());
    }
}
