package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import java.time.Duration;
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
}
