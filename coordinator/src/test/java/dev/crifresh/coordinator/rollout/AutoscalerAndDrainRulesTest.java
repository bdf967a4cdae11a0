package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.kube.ClusterAutoscaler;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.StopReason;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** kubectl drain's refusals, the coordinator's own node, and the cluster autoscaler's taints and annotation (mock API). */
class AutoscalerAndDrainRulesTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    private void barePod(String name, String node) {
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build());
    }

    private void scratchPod(String name, String node) {
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName(name).withNamespace("shop")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("scratch").withUid("rs-scratch")
                .withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox").endContainer()
                .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build());
    }

    private boolean cordoned(String node) {
        Node n = h.cluster.node(node);
        return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    @Test
    void aNodeWhoseDrainWouldLosePodsIsNotRolledAndTheRestOfTheRunGoesOn() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.STALE);
        barePod("db-0", "w1");
        scratchPod("cache-0", "w2");
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(Harness.fastSettings());
            assertEquals(Result.FAILED, r.result(), r.toJson());
            assertEquals(1, r.exitCode());
            assertEquals(StopReason.NODE_FAILED, r.stop());
            NodeReport w1 = line(r, "w1");
            assertEquals(Outcome.FAILED, w1.outcome());
            assertTrue(w1.detail().contains("shop/db-0 (declares no controller, --force)"), w1.detail());
            NodeReport w2 = line(r, "w2");
            assertEquals(Outcome.FAILED, w2.outcome());
            assertTrue(w2.detail().contains("shop/cache-0 (has emptyDir data, --delete-emptydir-data)"), w2.detail());
            assertEquals(Outcome.REBOOTED, line(r, "w3").outcome(), "the rest of the run goes on");
            assertEquals(List.of("w3"), timeline.cordonOrder(), "an undrainable node is never cordoned");
            assertTrue(r.error().contains("w1 was not rolled") && r.error().contains("w2 was not rolled"), r.error());
        }
        assertEquals(List.of("w3"), h.driver.reboots());
        assertEquals(2, h.cluster.podsOn("w1").size() + h.cluster.podsOn("w2").size(), "no pod was evicted");
    }

    @Test
    void forceAndDeleteEmptyDirDataEvictThemLikeKubectl() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        barePod("db-0", "w1");
        scratchPod("cache-0", "w1");
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        h.cluster.acceptEvictions("shop", "cache-0", h.evictions);
        Report r = h.rollout(Harness.fastSettings().toBuilder().drain(new DrainRules(true, true, null, null)).build());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome());
        assertEquals(List.of("shop/cache-0", "shop/db-0"), h.evictions.accepted().stream().sorted().toList());
    }

    @Test
    void finishedPodsAreNeverRefused() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.cluster.addPod(new PodBuilder().withNewMetadata().withName("done").withNamespace("shop").endMetadata()
                .withNewSpec().withNodeName("w1").endSpec().withNewStatus().withPhase("Succeeded").endStatus().build());
        h.cluster.acceptEvictions("shop", "done", h.evictions);
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
    }

    @Test
    void theCoordinatorsOwnNodeIsNotRolledAndSaysWhy() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        Report r = h.rollout(Harness.fastSettings().toBuilder().drain(new DrainRules(false, false, "w1", "crifresh/crifresh-rollout-abc")).build());
        assertEquals(1, r.exitCode(), r.toJson());
        NodeReport w1 = line(r, "w1");
        assertEquals(Outcome.FAILED, w1.outcome());
        assertTrue(w1.detail().contains("the coordinator runs on it (pod crifresh/crifresh-rollout-abc)"), w1.detail());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome());
        assertFalse(cordoned("w1"));
    }

    @Test
    void aNodeTheAutoscalerIsRemovingIsNotRolledAndReportedLeaving() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.worker("w3", Verdict.STALE);
        h.cluster.mergePatch("w1", "{\"spec\":{\"taints\":[{\"key\":\"" + ClusterAutoscaler.TO_BE_DELETED
                + "\",\"value\":\"1786925486\",\"effect\":\"NoSchedule\"}]}}");
        h.cluster.mergePatch("w2", "{\"spec\":{\"taints\":[{\"key\":\"" + ClusterAutoscaler.DELETION_CANDIDATE
                + "\",\"value\":\"1786925486\",\"effect\":\"PreferNoSchedule\"}]}}");
        Report r = h.rollout(Harness.fastSettings());
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.LEAVING, line(r, "w1").outcome());
        assertTrue(line(r, "w1").detail().startsWith("leaving: the cluster autoscaler is removing it (taint ToBeDeletedByClusterAutoscaler)"),
                line(r, "w1").detail());
        assertEquals(Outcome.LEAVING, line(r, "w2").outcome());
        assertEquals(Outcome.REBOOTED, line(r, "w3").outcome());
        assertEquals(List.of("w3"), h.driver.reboots());
    }

    @Test
    void aHeldNodeCarriesScaleDownDisabledUntilReleasedAndOnlyWhatCrifreshSetIsRemoved() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        // someone else's choice: kept as it is, before, during and after
        h.cluster.mergePatch("w2", "{\"metadata\":{\"annotations\":{\"" + ClusterAutoscaler.SCALE_DOWN_DISABLED + "\":\"true\"}}}");
        Map<String, Map<String, String>> atReboot = new ConcurrentHashMap<>();
        Report r = h.run(Harness.fastSettings(), node -> {
            atReboot.put(node.getMetadata().getName(), Map.copyOf(node.getMetadata().getAnnotations()));
            h.driver.reboot(node);
        }).rollout().report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals("true", atReboot.get("w1").get(ClusterAutoscaler.SCALE_DOWN_DISABLED));
        assertEquals("true", atReboot.get("w1").get(CrifreshAnnotations.SCALE_DOWN_DISABLED));
        assertEquals("true", atReboot.get("w2").get(ClusterAutoscaler.SCALE_DOWN_DISABLED));
        assertNull(atReboot.get("w2").get(CrifreshAnnotations.SCALE_DOWN_DISABLED), "crifresh did not set w2's");
        Map<String, String> w1 = h.cluster.node("w1").getMetadata().getAnnotations();
        assertFalse(w1 != null && w1.get(ClusterAutoscaler.SCALE_DOWN_DISABLED) != null, "released w1 still carries it: " + w1);
        assertFalse(w1 != null && w1.get(CrifreshAnnotations.SCALE_DOWN_DISABLED) != null);
        assertEquals("true", h.cluster.node("w2").getMetadata().getAnnotations().get(ClusterAutoscaler.SCALE_DOWN_DISABLED),
                "an annotation crifresh did not set was removed");
    }
}
