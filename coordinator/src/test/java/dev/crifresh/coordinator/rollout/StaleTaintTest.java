package dev.crifresh.coordinator.rollout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.kube.TaintPatches;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Point 1 of the rollout hardening: pods evicted from a stale node must land on a fresh one. Asserted on
 * the API server's final state and on the order of Node changes one watch saw (the order the server made
 * them: a taint seen before a cordon was set before the drain that follows the cordon began).
 */
class StaleTaintTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    /** The harness's settings with a Lease that a loaded 2-core machine cannot let expire by a late renewal. */
    private static dev.crifresh.coordinator.base.CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(15)).build();
    }

    /** Node changes as one watch delivers them: "w2 +taint PreferNoSchedule", "w2 cordon", "w2 -taint", "w2 uncordon". */
    private static final class History implements AutoCloseable {
        final List<String> changes = new CopyOnWriteArrayList<>();
        private final Map<String, String> taint = new ConcurrentHashMap<>();
        private final Map<String, Boolean> cordon = new ConcurrentHashMap<>();
        private final Watch watch;

        History(ApiFixture cluster) {
            for (Node n : cluster.nodes()) {
                taint.put(n.getMetadata().getName(), describe(n));
                cordon.put(n.getMetadata().getName(), cordoned(n));
            }
            watch = cluster.test.nodes().watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, Node n) {
                    String name = n.getMetadata().getName();
                    String t = describe(n);
                    String before = taint.put(name, t);
                    if (!t.equals(before)) {
                        changes.add(name + (t.isEmpty() ? " -taint" : " +taint " + t));
                    }
                    Boolean was = cordon.put(name, cordoned(n));
                    if (was == null || was != cordoned(n)) {
                        changes.add(name + (cordoned(n) ? " cordon" : " uncordon"));
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            });
        }

        static String describe(Node n) {
            Taint t = TaintPatches.find(n, StaleTaint.KEY);
            return t == null ? "" : t.getEffect() + " " + t.getValue();
        }

        static boolean cordoned(Node n) {
            return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
        }

        int index(String change) {
            for (int i = 0; i < changes.size(); i++) {
                if (changes.get(i).startsWith(change)) {
                    return i;
                }
            }
            throw new AssertionError("no '" + change + "' in " + changes);
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    private void assertNoCrifreshTaint() {
        for (Node n : h.cluster.nodes()) {
            assertNull(TaintPatches.find(n, StaleTaint.KEY), n.getMetadata().getName() + " still tainted: " + TaintPatches.taints(n));
        }
    }

    private static JsonNode json(Report r) {
        return JsonMapper.builder().build().readTree(r.toJson());
    }

    @Test
    void everyStaleNodeIsTaintedBeforeTheFirstDrainAndUntaintedAfterItsRebootBeforeTheNextDrain() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.STALE);
        Report r;
        List<String> changes;
        try (History history = new History(h.cluster)) {
            r = h.rollout(settings().toBuilder().runId("run-taint1").build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(20), "w3's taint removal seen",
                    () -> history.changes.contains("w3 -taint"));
            changes = List.copyOf(history.changes);
            assertTrue(history.index("w2 +taint PreferNoSchedule run-taint1") < history.index("w2 cordon"), changes.toString());
            assertTrue(history.index("w3 +taint PreferNoSchedule run-taint1") < history.index("w2 cordon"),
                    "w3 must be tainted before w2's pods are evicted: " + changes);
            assertTrue(history.index("w2 -taint") < history.index("w3 cordon"),
                    "w2 is fresh again before w3's drain, so w3's pods may land on it: " + changes);
            assertTrue(changes.stream().noneMatch(c -> c.startsWith("w1 +taint")), "the fresh node is never tainted: " + changes);
        }
        assertEquals(List.of("w2", "w3"), r.rebootOrder());
        JsonNode taint = json(r).path("staleTaint");
        assertEquals("crifresh.dev/stale", taint.path("key").asString());
        assertEquals("PreferNoSchedule", taint.path("effect").asString());
        assertEquals(List.of("w2", "w3"), taint.path("tainted").valueStream().map(JsonNode::asString).toList());
        assertEquals(List.of("w1"), taint.path("freshSchedulable").valueStream().map(JsonNode::asString).toList());
        assertTrue(taint.path("seed").isNull());
        assertNoCrifreshTaint();
        List<String> reasons = h.cluster.test.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals("w3")).map(e -> e.getReason()).toList();
        assertTrue(reasons.contains("CrifreshTainted") && reasons.contains("CrifreshUntainted"), reasons.toString());
    }

    @Test
    void noScheduleOnRequestAndOtherTaintsSurvive() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.STALE);
        h.cluster.test.nodes().withName("w2").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]}]");
        try (History history = new History(h.cluster)) {
            Report r = h.rollout(settings().toBuilder().runId("run-hard").staleTaint(StaleTaint.NO_SCHEDULE).build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertTrue(history.index("w2 +taint NoSchedule run-hard") < history.index("w2 cordon"), history.changes.toString());
        }
        assertNoCrifreshTaint();
        List<Taint> left = TaintPatches.taints(h.cluster.node("w2"));
        assertEquals(1, left.size(), left.toString());
        assertEquals("dedicated", left.get(0).getKey());
    }

    @Test
    void withoutFreshCapacityTheLeastLoadedStaleWorkerIsRolledFirstAndAlone() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.STALE);
        h.cluster.addPod("default", "a1", "w1");
        h.cluster.addPod("default", "a2", "w1");
        h.cluster.addPod("default", "a3", "w3");
        for (String pod : List.of("a1", "a2", "a3")) {
            h.cluster.acceptEvictions("default", pod, h.evictions);
        }
        Report plan = h.run(settings().toBuilder().maxUnavailable("3").build()).plan();
        assertEquals("w2", json(plan).path("staleTaint").path("seed").asString(), plan.toJson());
        assertEquals("w2", plan.rebootOrder().get(0));
        assertNoCrifreshTaint();

        try (History history = new History(h.cluster)) {
            Report r = h.rollout(settings().toBuilder().maxUnavailable("3").build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals("w2", r.rebootOrder().get(0));
            assertEquals("w2", json(r).path("staleTaint").path("seed").asString());
            assertEquals(0, json(r).path("staleTaint").path("freshSchedulable").size());
            int seedFresh = history.index("w2 -taint");
            assertTrue(seedFresh < history.index("w1 cordon") && seedFresh < history.index("w3 cordon"),
                    "the seed returns fresh before any other node is drained, though the budget allows 3: " + history.changes);
        }
        assertNoCrifreshTaint();
        assertTrue(h.progress.stream().anyMatch(l -> l.contains("w2 (0 pods to evict) is rolled first and alone as the seed")),
                String.join("\n", h.progress));
    }

    @Test
    void everyExitPathRemovesTheTaintAlsoFromAFailedNode() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.NEVER_RETURNS);
        Report r = h.rollout(settings().toBuilder().rebootTimeout(Duration.ofMillis(800)).stallTimeout(Duration.ofMillis(800)).build());
        assertEquals(Result.FAILED, r.result(), r.toJson());
        assertTrue(Harness.line(r, "w1").detail().contains("did not return Ready"), r.toJson());
        assertNoCrifreshTaint();
        assertTrue(Boolean.TRUE.equals(h.cluster.node("w1").getSpec().getUnschedulable()), "the failed node stays cordoned: " + r.toJson());
    }

    @Test
    void anInterruptedRunRemovesItsTaintsToo() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun run = h.run(settings()).rollout();
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(20), "w1 rebooting", () -> h.driver.rebootsOf("w1") == 1);
        assertTrue(TaintPatches.find(h.cluster.node("w2"), StaleTaint.KEY) != null, "w2 is tainted while w1 reboots");
        run.coordinator.stop(); // what SIGTERM does
        Report r = run.report();
        assertEquals(Result.FAILED, r.result(), r.toJson());
        assertNoCrifreshTaint();
    }

    @Test
    void aRerunRemovesAKilledRunsTaintAndKeepsOthers() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.FRESH);
        h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"},"
                        + "{\"key\":\"crifresh.dev/stale\",\"value\":\"run-killed\",\"effect\":\"PreferNoSchedule\"}]}]");
        Report r = h.rollout(settings());
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertNoCrifreshTaint();
        assertEquals(List.of("dedicated"), TaintPatches.taints(h.cluster.node("w1")).stream().map(Taint::getKey).toList());
    }

    @Test
    void offLeavesTaintsAloneAndNeedsNoSeed() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        try (History history = new History(h.cluster)) {
            Report r = h.rollout(settings().toBuilder().staleTaint(StaleTaint.OFF).build());
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals("off", json(r).path("staleTaint").path("effect").asString());
            assertTrue(json(r).path("staleTaint").path("seed").isNull());
            assertTrue(history.changes.stream().noneMatch(c -> c.contains("taint")), history.changes.toString());
        }
    }

    @Test
    void aTaintPatchIsRefusedWhenTheTaintsChangedSinceItWasComputed() {
        h.worker("w1", Verdict.STALE);
        Node before = h.cluster.node("w1");
        String patch = TaintPatches.put(before, StaleTaint.KEY, "run-x", "PreferNoSchedule");
        h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/spec/taints\",\"value\":[{\"key\":\"other\",\"effect\":\"NoSchedule\"}]}]");
        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON), patch));
        assertEquals(422, e.getCode());
        Node now = h.cluster.node("w1");
        h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON),
                TaintPatches.put(now, StaleTaint.KEY, "run-x", "PreferNoSchedule"));
        assertEquals(List.of("other", StaleTaint.KEY),
                TaintPatches.taints(h.cluster.node("w1")).stream().map(Taint::getKey).toList());
        String remove = TaintPatches.remove(h.cluster.node("w1"), StaleTaint.KEY);
        h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"replace\",\"path\":\"/spec/taints/1/value\",\"value\":\"run-y\"}]");
        assertEquals(422, assertThrows(KubernetesClientException.class,
                () -> h.cluster.test.nodes().withName("w1").patch(PatchContext.of(PatchType.JSON), remove)).getCode());
        assertNull(TaintPatches.put(h.cluster.node("w1"), StaleTaint.KEY, "run-y", "PreferNoSchedule"),
                "nothing to patch when the node carries exactly this taint");
    }
}
