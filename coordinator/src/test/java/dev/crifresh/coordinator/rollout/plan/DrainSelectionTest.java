package dev.crifresh.coordinator.rollout.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.rollout.plan.DrainSelection.Refusal;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** kubectl drain's filters (pkg/drain/filters.go), one row per case. */
class DrainSelectionTest {
    private static final DrainRules NONE = DrainRules.KUBECTL_DEFAULTS;
    private static final DrainRules FORCE = new DrainRules(true, false, null, null);
    private static final DrainRules EMPTY_DIR = new DrainRules(false, true, null, null);
    private static final DrainRules BOTH = new DrainRules(true, true, null, null);

    private static PodBuilder pod(String name) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
                .withNewSpec().withNodeName("w1").endSpec().withNewStatus().withPhase("Running").endStatus();
    }

    private static PodBuilder owned(String name, String kind, Boolean controller) {
        return pod(name).editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind(kind).withName("o").withUid("u")
                .withController(controller).endOwnerReference().endMetadata();
    }

    private static PodBuilder scratch(PodBuilder p) {
        return p.editSpec().addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume().endSpec();
    }

    static Stream<Arguments> table() {
        Pod bare = pod("bare").build();
        Pod rs = owned("rs", "ReplicaSet", true).build();
        Pod notController = owned("ref", "ReplicaSet", null).build();
        Pod rsScratch = scratch(owned("scratch", "ReplicaSet", true)).build();
        Pod bareScratch = scratch(pod("both")).build();
        Pod ds = scratch(owned("ds", "DaemonSet", true)).build();
        Pod mirror = pod("mirror").editMetadata().addToAnnotations(DrainSelection.MIRROR_ANNOTATION, "x").endMetadata().build();
        Pod terminating = pod("gone").editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
        Pod succeeded = scratch(pod("done")).editStatus().withPhase("Succeeded").endStatus().build();
        Pod failed = pod("failed").editStatus().withPhase("Failed").endStatus().build();
        Pod noStatus = pod("pending").withStatus(null).build();
        return Stream.of(
                Arguments.of(bare, NONE, List.of(Refusal.UNMANAGED)),
                Arguments.of(bare, FORCE, List.of()),
                Arguments.of(bare, EMPTY_DIR, List.of(Refusal.UNMANAGED)),
                Arguments.of(rs, NONE, List.of()),
                // metav1.GetControllerOf: an owner reference that is not the controller does not make it managed
                Arguments.of(notController, NONE, List.of(Refusal.UNMANAGED)),
                Arguments.of(rsScratch, NONE, List.of(Refusal.EMPTY_DIR)),
                Arguments.of(rsScratch, FORCE, List.of(Refusal.EMPTY_DIR)),
                Arguments.of(rsScratch, EMPTY_DIR, List.of()),
                Arguments.of(bareScratch, NONE, List.of(Refusal.UNMANAGED, Refusal.EMPTY_DIR)),
                Arguments.of(bareScratch, FORCE, List.of(Refusal.EMPTY_DIR)),
                Arguments.of(bareScratch, BOTH, List.of()),
                Arguments.of(ds, NONE, List.of()),
                Arguments.of(mirror, NONE, List.of()),
                Arguments.of(terminating, NONE, List.of()),
                Arguments.of(succeeded, NONE, List.of()),
                Arguments.of(failed, NONE, List.of()),
                Arguments.of(noStatus, NONE, List.of(Refusal.UNMANAGED)));
    }

    @ParameterizedTest
    @MethodSource("table")
    void refusesWhatKubectlDrainRefuses(Pod pod, DrainRules rules, List<Refusal> expected) {
        assertEquals(expected, DrainSelection.refusals(pod, rules), pod.getMetadata().getName() + " with " + rules);
    }

    @Test
    void theCoordinatorsOwnPodIsNeverEvictedNorRefused() {
        Pod self = pod("crifresh-rollout-x").build();
        DrainRules rules = NONE.withSelf("w1", "ns/crifresh-rollout-x");
        assertEquals(true, DrainSelection.neverEvicted(self, rules));
        assertEquals(List.of(), DrainSelection.refusals(self, rules));
        assertEquals(false, DrainSelection.neverEvicted(self, NONE));
    }

    @Test
    void theReportNamesEveryRefusedPodAndItsFlag() {
        List<DrainSelection.Refused> refused = DrainSelection.refused(List.of(pod("a").build(), owned("b", "ReplicaSet", true).build(),
                scratch(pod("c")).build()), NONE);
        assertEquals("not rolled: draining it would lose 2 pods a reboot alone only restarts: ns/a (declares no controller, --force),"
                + " ns/c (declares no controller, --force; has emptyDir data, --delete-emptydir-data)", DrainSelection.notDrainable(refused));
    }

    private static NodeFacts node(String name) {
        return new NodeFacts(name, "uid-" + name, "1", Role.WORKER, "b", true, false, List.of("10.0.0.1"), Map.of(), null, null,
                NodeFacts.ReadyTimes.NONE, List.of());
    }

    @Test
    void notRolledLeavesOutTheCoordinatorsNodeAndUndrainableNodesOnly() {
        DrainRules rules = NONE.withSelf("w3", null);
        Map<String, String> out = NotRolled.decide(List.of(node("w1"), node("w2"), node("w3"), node("w4")),
                Map.of("w1", List.of(pod("bare").build()), "w2", List.of(owned("rs", "ReplicaSet", true).build()), "w3", List.of()),
                rules);
        assertEquals(List.of("w1", "w3"), List.copyOf(out.keySet()), "w4's pods were not listed: its drain decides");
        assertEquals("not rolled: the coordinator runs on it; run it from another node to roll this one", out.get("w3"));
    }
}
