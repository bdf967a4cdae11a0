package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static dev.crifresh.coordinator.rollout.RolloutTest.assertNothingLeftBehind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.mockapi.fault.Exchange;
import dev.crifresh.mockapi.fault.Requests;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Transient API errors (5xx, 429) are retried with backoff while the Lease is held; they do not end a run. */
class TransientErrorsTest {
    private final Harness h = new Harness();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void nodePatchesAndReadsAnsweredWithServerErrorsAreRetried() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.api.faults("a")
                .fail(Requests.call("PATCH", "/api/v1/nodes/w1"), 503, 2)
                .fail(Requests.call("GET", "/api/v1/nodes/w1"), 500, 2)
                .fail(Requests.call("PATCH", "/api/v1/nodes/w2"), 429, 3);
        Report r = h.run("a", Harness.fastSettings(), lines).rollout().report();
        assertEquals(0, r.exitCode(), r.toJson() + "\n" + lines);
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome());
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertEquals(1, h.driver.rebootsOf("w2"));
        List<Exchange> faulted = h.cluster.api.dispatcher().history("a", Exchange::faulted);
        assertEquals(7, faulted.size(), faulted.toString());
        assertNothingLeftBehind(h);
    }

    @Test
    void nodeListsAnsweredWithServerErrorsWhileTheInformerStartsAreRetried() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.api.faults("a").fail(Requests.call("GET", "/api/v1/nodes?"), 503, 2);
        Report r = h.run("a", Harness.fastSettings(), lines).rollout().report();
        assertEquals(0, r.exitCode(), r.toJson() + "\n" + lines);
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(2, h.cluster.api.dispatcher().history("a", Exchange::faulted).size());
    }

    @Test
    void aReleaseThatKeepsFailingLeavesTheRebootedNodeCountedRebootedWithTheMissingUncordonStated() throws Exception {
        h.worker("w1", Verdict.STALE);
        // The release is the only patch that drops the ownership annotation: fail every one of them.
        h.cluster.api.faults("a").fail(Requests.call("PATCH", "/api/v1/nodes/w1")
                .and(Requests.bodyContains("{\"op\":\"remove\",\"path\":\"/metadata/annotations/crifresh.dev~1rollout\"}")), 500);
        Report r = h.run("a", Harness.fastSettings(), lines).rollout().report();
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertTrue(line(r, "w1").detail().contains("NOT uncordoned"), line(r, "w1").detail());
        assertEquals(1, r.summary().rebooted());
        assertEquals(1, h.driver.rebootsOf("w1"));
    }

    @Test
    void aTaintRemovalAtTheEndOfTheRunAnsweredWithAServerErrorIsRetried() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.addPod("shop", "web-0", "w2"); // w1, without pods, is rolled first (the seed)
        h.driver.behave("w1", dev.crifresh.coordinator.fixture.TestDriver.Behaviour.DRIVER_FAILS);
        // The run stops after w1; w2, tainted before the first drain, is untainted at its end (a pass over every node,
        // then one over the nodes this run tainted): its first two removals answered 500.
        h.cluster.api.faults("a").fail(Requests.call("PATCH", "/api/v1/nodes/w2")
                .and(Requests.bodyContains("{\"op\":\"remove\",\"path\":\"/spec/taints/")), 500, 2);
        Report r = h.run("a", Harness.fastSettings(), lines).rollout().report();
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(2, h.cluster.api.dispatcher().history("a", Exchange::faulted).size(), "the fault was not met");
        var taints = h.cluster.node("w2").getSpec().getTaints();
        assertTrue(taints == null || taints.stream().noneMatch(t -> "crifresh.dev/stale".equals(t.getKey())),
                "w2 kept crifresh's taint after two transient errors: " + taints);
    }
}
