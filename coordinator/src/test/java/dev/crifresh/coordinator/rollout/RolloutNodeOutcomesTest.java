package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.rollout.RolloutTest.annotation;
import static dev.crifresh.coordinator.rollout.RolloutTest.assertNothingLeftBehind;
import static dev.crifresh.coordinator.rollout.RolloutTest.cordoned;
import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.driver.ProcessRunner;
import dev.crifresh.coordinator.driver.TalosctlDriver;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.Decision;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a node's roll ends on the mock API server: drains, reboots that fail or stay stale, config waits, action none. */
class RolloutNodeOutcomesTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void pdbRefusalsAreRetriedUntilTheEvictionPasses() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        h.cluster.refuseEvictions("shop", "db-0", 3);
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(List.of("shop/db-0"), h.evictions.accepted());
        assertTrue(h.cluster.podsOn("w1").isEmpty());
        assertTrue(h.progress.contains("[1/1] w1 draining: 1 pod left"), h.progress.toString());
        assertEquals(3, h.cluster.refusals());
    }

    @Test
    void aDrainThatCannotFinishFailsTheNodeAndNothingLaterStarts() throws Exception {
        h.worker("w0", Verdict.FRESH); // fresh capacity: no seed, so the order stays w1, w2
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().drainTimeout(Duration.ofMillis(1500)).build());
            assertEquals(1, r.exitCode(), r.toJson());
            NodeReport w1 = line(r, "w1");
            assertEquals(Outcome.FAILED, w1.outcome());
            assertTrue(w1.detail().contains("shop/db-0 (eviction refused by a PodDisruptionBudget)"), w1.detail());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
            assertEquals(List.of("w1"), timeline.cordonOrder());
        }
        assertTrue(h.driver.reboots().isEmpty());
        assertFalse(cordoned(h, "w1"), "w1 was not uncordoned after its drain failed");
        assertNothingLeftBehind(h);
        assertEquals(1, h.cluster.podsOn("w1").size());
        assertTrue(h.cluster.refusals() >= 3, "the refused eviction was not retried: " + h.cluster.refusals());
    }

    @Test
    void daemonSetMirrorAndTerminatingPodsAreNotEvicted() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName("agent-x").withNamespace("crifresh")
                .addNewOwnerReference().withKind("DaemonSet").withName("crifresh-agent").withApiVersion("apps/v1").withUid("ds").endOwnerReference()
                .endMetadata().withNewSpec().withNodeName("w1").endSpec().build());
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName("kube-proxy-w1").withNamespace("kube-system")
                .addToAnnotations("kubernetes.io/config.mirror", "abc").endMetadata().withNewSpec().withNodeName("w1").endSpec().build());
        // Deleted while a finalizer holds it: terminating, with a deletionTimestamp.
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName("leaving").withNamespace("shop")
                .withFinalizers("example.com/hold").endMetadata().withNewSpec().withNodeName("w1").endSpec().build());
        h.cluster.test.pods().inNamespace("shop").withName("leaving").delete();
        h.cluster.addPod("shop", "web-1", "w1");
        h.cluster.acceptEvictions("shop", "web-1", h.evictions);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(List.of("shop/web-1"), h.evictions.accepted());
        List<String> left = h.cluster.podsOn("w1").stream().map(Pod::getMetadata).map(m -> m.getName()).sorted().toList();
        assertEquals(List.of("agent-x", "kube-proxy-w1", "leaving"), left);
    }

    @Test
    void aNodeThatNeverReturnsFailsAndStaysOwnedForARerun() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.NEVER_RETURNS);
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().rebootTimeout(Duration.ofMillis(500)).stallTimeout(Duration.ofMillis(500)).build());
            assertEquals(1, r.exitCode(), r.toJson());
            assertEquals(Outcome.FAILED, line(r, "w1").outcome());
            assertTrue(line(r, "w1").detail().contains("did not return Ready with a new boot id"), line(r, "w1").detail());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
            assertEquals(List.of("w1"), timeline.cordonOrder());
        }
        assertEquals(List.of("w1"), h.driver.reboots());
        assertTrue(cordoned(h, "w1"));
        assertTrue(annotation(h, "w1", CrifreshAnnotations.ROLLOUT).endsWith("/rebooting"));
        assertFalse(cordoned(h, "w2"));
    }

    @Test
    void aNodeStillStaleAfterItsRebootIsRebootedOnceMore() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.STALE_ONCE);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(2, h.driver.rebootsOf("w1"));
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertNothingLeftBehind(h);
    }

    @Test
    void aNodeStaleAfterTwoRebootsFailsWithoutAThird() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.ALWAYS_STALE);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(2, h.driver.rebootsOf("w1"));
        assertTrue(line(r, "w1").detail().contains("still stale after 2 reboots"), line(r, "w1").detail());
    }

    @Test
    void aFailingRebootDriverCallLeavesTheNodeCordonedAsMaybeRebooted() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        String bootBefore = h.cluster.node("w1").getStatus().getNodeInfo().getBootID();
        h.driver.behave("w1", Behaviour.DRIVER_FAILS);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(1, r.exitCode(), r.toJson());
        NodeReport w1 = line(r, "w1");
        assertEquals(Outcome.FAILED, w1.outcome());
        assertTrue(w1.detail().contains("reboot request failed: talosctl exited with 1"), w1.detail());
        assertTrue(w1.detail().contains("the reboot may have happened"), w1.detail());
        assertTrue(w1.detail().contains("a rerun resumes from the annotations"), w1.detail());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
        // The request may have reached the node: it must not be uncordoned, and a rerun must know.
        assertTrue(cordoned(h, "w1"), "w1 was uncordoned although its reboot may be under way");
        assertTrue(annotation(h, "w1", CrifreshAnnotations.ROLLOUT).endsWith("/rebooting"));
        assertEquals(bootBefore, annotation(h, "w1", CrifreshAnnotations.BOOT_ID));
        assertEquals("true", annotation(h, "w1", CrifreshAnnotations.CORDONED));
        assertFalse(cordoned(h, "w2"));

        // The reboot did happen after all: a rerun waits for it and does not call the driver again.
        Harness.RolloutRun rerun = h.run(Harness.fastSettings().toBuilder().lockTimeout(Duration.ofSeconds(15)).build()).rollout();
        rerun.await(Duration.ofSeconds(15), "the rerun to resume w1", RunEvents.resumed("w1"));
        h.driver.bringBack("w1");
        Report second = rerun.report();
        assertEquals(0, second.exitCode(), second.toJson());
        assertEquals(Outcome.REBOOTED, line(second, "w1").outcome());
        assertFalse(cordoned(h, "w1"));
        assertNothingLeftBehind(h);
    }

    @Test
    void aConfigPendingNodeIsWaitedForThenRebooted() throws Exception {
        h.node("w1", false, Verdict.FRESH, TestAgent.OLD);
        Harness.RolloutRun run = h.run(Harness.fastSettings()).rollout();
        run.await(Duration.ofSeconds(15), "the config wait", RunEvents.is(RunEvent.ConfigWaitStarted.class));
        assertTrue(h.driver.reboots().isEmpty());
        // The platform renders the new config; containerd still runs the old one.
        h.agent.attest(h.cluster, "w1", Verdict.STALE, TestAgent.DESIRED);
        Report r = run.report();
        assertEquals(0, r.exitCode(), r.toJson());
        NodeReport w1 = line(r, "w1");
        assertEquals(NodeVerdict.CONFIG_PENDING, w1.verdict());
        assertEquals(Decision.REBOOT, w1.decision());
        assertEquals(Outcome.REBOOTED, w1.outcome());
    }

    @Test
    void aConfigPendingNodeThatTurnsFreshIsNotRebooted() throws Exception {
        h.node("w1", false, Verdict.STALE, TestAgent.OLD);
        Harness.RolloutRun run = h.run(Harness.fastSettings()).rollout();
        run.await(Duration.ofSeconds(15), "the config wait", RunEvents.is(RunEvent.ConfigWaitStarted.class));
        h.agent.attest(h.cluster, "w1", Verdict.FRESH, TestAgent.DESIRED);
        Report r = run.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Decision.WAIT, line(r, "w1").decision());
        assertEquals(Outcome.BECAME_FRESH, line(r, "w1").outcome());
        assertTrue(h.driver.reboots().isEmpty());
    }

    @Test
    void aConfigTimeoutStopsBeforeAnyReboot() throws Exception {
        h.node("w1", false, Verdict.FRESH, TestAgent.OLD);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.FRESH);
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().configTimeout(Duration.ofMillis(300)).build());
            assertEquals(3, r.exitCode(), r.toJson());
            assertEquals(Result.FAILED, r.result());
            assertEquals(Decision.WAIT, line(r, "w1").decision());
            assertEquals(Outcome.FAILED, line(r, "w1").outcome());
            assertEquals(Decision.REBOOT, line(r, "w2").decision());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w3").outcome());
            assertTrue(timeline.cordonOrder().isEmpty());
        }
        assertTrue(h.driver.reboots().isEmpty());
    }

    @Test
    void actionNoneOnlyWaitsForStaleNodesToTurnFresh() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.FRESH);
        CoordinatorSettings s = Harness.fastSettings().toBuilder().action(Action.NONE).build();
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.RolloutRun run = h.run(s, node -> {
                throw new AssertionError("action none must never reboot");
            }).rollout();
            run.await(Duration.ofSeconds(15), "the wait", RunEvents.is(RunEvent.FreshWaitStarted.class));
            h.agent.attest(h.cluster, "w1", Verdict.FRESH, TestAgent.DESIRED);
            Report r = run.report();
            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(Decision.WAIT, line(r, "w1").decision());
            assertEquals(Outcome.BECAME_FRESH, line(r, "w1").outcome());
            assertEquals(Outcome.SKIPPED, line(r, "w2").outcome());
            assertEquals(List.of("w1"), r.rebootOrder());
            assertTrue(timeline.cordonOrder().isEmpty());
        }
    }

    @Test
    void actionNoneTimesOutWhenANodeStaysStale() throws Exception {
        h.worker("w1", Verdict.STALE);
        Report r = h.run(Harness.fastSettings().toBuilder().action(Action.NONE).attestTimeout(Duration.ofMillis(300)).build(), node -> {
            throw new AssertionError("action none must never reboot");
        }).rollout().report();
        assertEquals(3, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome());
    }

    @Test
    void aNodeCordonedBySomeoneElseStaysCordoned() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.mergePatch("w1", "{\"spec\":{\"unschedulable\":true}}");
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertTrue(cordoned(h, "w1"), "crifresh uncordoned a node it had not cordoned");
        assertNothingLeftBehind(h);
        assertTrue(h.progress.contains("[1/1] w1 already cordoned by someone else; it stays cordoned"), h.progress.toString());
    }

    @Test
    void aNodeTheDriverCannotRebootFailsTheRunBeforeAnyNodeIsTouched() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.cluster.addNode("w2", false, null);
        h.agent.attest(h.cluster, "w2", Verdict.STALE, TestAgent.DESIRED);
        TalosctlDriver talosctl = new TalosctlDriver("/nonexistent/talosctl", null, new ProcessRunner(Duration.ofSeconds(1)));
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.run(Harness.fastSettings(), talosctl).rollout().report();
            assertEquals(1, r.exitCode(), r.toJson());
            assertEquals(Outcome.FAILED, line(r, "w2").outcome());
            assertEquals("cannot be rebooted: node w2 has no InternalIP in status.addresses", line(r, "w2").detail());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w1").outcome());
            assertTrue(r.error().endsWith("no node was touched"), r.error());
            assertTrue(timeline.events().isEmpty(), timeline.events().toString());
        }
        assertNothingLeftBehind(h);
    }
}
