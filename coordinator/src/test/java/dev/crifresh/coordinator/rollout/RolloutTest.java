package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.driver.ProcessRunner;
import dev.crifresh.coordinator.driver.TalosctlDriver;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.StopReason;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Set;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RolloutTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    static void assertNothingLeftBehind(Harness h) {
        for (Node n : h.cluster.nodes()) {
            Map<String, String> ann = n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
            assertNull(ann.get(CrifreshAnnotations.ROLLOUT), n.getMetadata().getName() + " still owned");
            assertNull(ann.get(CrifreshAnnotations.CORDONED), n.getMetadata().getName() + " still marked cordoned");
        }
    }

    @Test
    void rebootsStaleWorkersAndSkipsFreshOnes() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.STALE);
        h.controlPlane("cp1", Verdict.FRESH);
        h.cluster.addPod("default", "app-1", "w2");
        h.cluster.acceptEvictions("default", "app-1", h.evictions);
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals(0, r.exitCode());
            assertEquals(Outcome.SKIPPED, line(r, "w1").outcome());
            assertEquals(Outcome.REBOOTED, line(r, "w2").outcome());
            assertEquals(Outcome.REBOOTED, line(r, "w3").outcome());
            assertEquals(Outcome.SKIPPED, line(r, "cp1").outcome());
            assertEquals(List.of("w2", "w3"), r.rebootOrder());
            assertEquals(List.of("w2", "w3"), h.driver.reboots());
            assertEquals(List.of("default/app-1"), h.evictions.accepted());
            assertTrue(timeline.maxUnavailable() <= 1, timeline.events().toString());
            assertFalse(timeline.cordonOrder().contains("w1"));
        }
        assertNothingLeftBehind(h);
        for (Node n : h.cluster.nodes()) {
            assertFalse(Boolean.TRUE.equals(n.getSpec().getUnschedulable()), n.getMetadata().getName() + " left cordoned");
        }
    }

    static boolean cordoned(Harness h, String name) {
        return Boolean.TRUE.equals(h.cluster.node(name).getSpec().getUnschedulable());
    }

    static String annotation(Harness h, String name, String key) {
        var ann = h.cluster.node(name).getMetadata().getAnnotations();
        return ann == null ? null : ann.get(key);
    }

    @Test
    void budgetAllowsParallelWorkersButNeverMore() throws Exception {
        for (int i = 1; i <= 6; i++) {
            h.worker("w" + i, Verdict.STALE);
        }
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().maxUnavailable("50%").build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals(6, r.summary().rebooted());
            assertTrue(timeline.maxUnavailable() <= 3, "more than 3 unavailable: " + timeline.unavailableSets());
            assertEquals(3, timeline.maxUnavailable(), "the budget of 3 was not used: " + timeline.unavailableSets());
        }
        assertNothingLeftBehind(h);
    }

    @Test
    void budgetCountsNodesCordonedOrNotReadyForOtherReasons() throws Exception {
        for (int i = 1; i <= 4; i++) {
            h.worker("w" + i, Verdict.STALE);
        }
        h.worker("admin-cordoned", Verdict.FRESH);
        h.cluster.mergePatch("admin-cordoned", "{\"spec\":{\"unschedulable\":true}}");
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().maxUnavailable("2").build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertTrue(timeline.maxUnavailable() <= 2, "more than 2 unavailable: " + timeline.unavailableSets());
            for (Set<String> set : timeline.unavailableSets()) {
                assertTrue(set.contains("admin-cordoned"), "the admin's cordon was lifted: " + set);
            }
        }
        assertTrue(cordoned(h, "admin-cordoned"));
    }

    @Test
    void controlPlanesGoLastAndOneAtATime() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.controlPlane("cp1", Verdict.STALE);
        h.controlPlane("cp2", Verdict.STALE);
        h.controlPlane("cp3", Verdict.STALE);
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings().toBuilder().maxUnavailable("3").build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals(Set.of("w1", "w2"), Set.copyOf(r.rebootOrder().subList(0, 2)));
            assertEquals(List.of("cp1", "cp2", "cp3"), r.rebootOrder().subList(2, 5));
            for (Set<String> set : timeline.unavailableSets()) {
                long cps = set.stream().filter(n -> n.startsWith("cp")).count();
                assertTrue(cps <= 1, "control planes unavailable together: " + set);
                if (cps == 1) {
                    assertEquals(1, set.size(), "a control plane was unavailable together with a worker: " + set);
                }
            }
        }
    }

    @Test
    void controlPlaneWaitsUntilEveryOtherControlPlaneIsReady() throws Exception {
        h.controlPlane("cp1", Verdict.STALE);
        h.controlPlane("cp2", Verdict.FRESH);
        h.cluster.setReady("cp2", false);
        Harness.RolloutRun run = h.run(Harness.fastSettings()).rollout();
        run.await(Duration.ofSeconds(15), "the coordinator to wait (cp2 is not Ready)", RunEvents.is(RunEvent.Blocked.class));
        assertFalse(cordoned(h, "cp1"), "cp1 started while cp2 was not Ready");
        h.cluster.setReady("cp2", true);
        Report r = run.report();
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "cp1").outcome());
    }

    private void label(String node, String pool) {
        h.cluster.mergePatch(node, "{\"metadata\":{\"labels\":{\"pool\":\"" + pool + "\"}}}");
    }

    @Test
    void aNodeSelectorDoesNotHideANotReadyControlPlane() throws Exception {
        h.controlPlane("cp1", Verdict.STALE);
        label("cp1", "blue");
        h.controlPlane("cp2", Verdict.FRESH);
        h.controlPlane("cp3", Verdict.FRESH);
        h.cluster.setReady("cp2", false);
        Harness.RolloutRun run = h.run(Harness.fastSettings().toBuilder().nodeSelector("pool=blue").build()).rollout();
        run.await(Duration.ofSeconds(15), "cp1 to wait for the unselected cp2", RunEvents.is(RunEvent.Blocked.class));
        assertFalse(cordoned(h, "cp1"), "cp1 started while the unselected cp2 was not Ready");
        assertEquals(0, h.driver.rebootsOf("cp1"));
        h.cluster.setReady("cp2", true);
        Report r = run.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(List.of("cp1"), r.nodes().stream().map(NodeReport::name).toList());
        assertEquals(Outcome.REBOOTED, line(r, "cp1").outcome());
    }

    @Test
    void aNodeSelectorDoesNotHideUnavailableWorkersFromTheBudget() throws Exception {
        h.worker("w1", Verdict.STALE);
        label("w1", "blue");
        h.worker("w9", Verdict.FRESH);
        h.cluster.setReady("w9", false);
        Report r = h.rollout(Harness.fastSettings().toBuilder().nodeSelector("pool=blue").stallTimeout(Duration.ofMillis(400)).build());
        assertEquals(3, r.exitCode(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w1").outcome());
        assertTrue(r.error().contains("w9 (NotReady)"), r.error());
        assertTrue(h.driver.reboots().isEmpty());
        assertFalse(cordoned(h, "w1"));
    }

    @Test
    void aBudgetUsedUpByOthersTimesOut() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.FRESH);
        h.cluster.setReady("w2", false);
        Report r = h.rollout(Harness.fastSettings().toBuilder().stallTimeout(Duration.ofMillis(400)).build());
        assertEquals(Result.FAILED, r.result());
        assertEquals(3, r.exitCode(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w1").outcome());
        assertTrue(r.error().contains("w2 (NotReady)"), r.error());
        assertFalse(cordoned(h, "w1"));
        assertTrue(h.driver.reboots().isEmpty());
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
