package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What is re-checked right before the reboot driver call. */
class LastMomentCheckTest {
    private static final String RUN = "run-1";

    private static NodeBuilder node(String name, boolean controlPlane, boolean ready, boolean cordoned, String owner) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name).withResourceVersion("7").endMetadata()
                .withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus().withNewNodeInfo().withBootID("boot-" + name).endNodeInfo()
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.0.0." + name.hashCode() % 200).endAddress()
                .endStatus();
        if (controlPlane) {
            b.editMetadata().addToLabels("node-role.kubernetes.io/control-plane", "").endMetadata();
        }
        if (owner != null) {
            b.editMetadata().addToAnnotations(CrifreshAnnotations.ROLLOUT, owner).endMetadata();
        }
        return b;
    }

    private static NodeFacts facts(NodeBuilder b) {
        return NodeFacts.of(b.build());
    }

    private static NodeFacts draining(String name, boolean controlPlane) {
        return facts(node(name, controlPlane, true, true, RUN + "/draining"));
    }

    private static NodeFacts ready(String name, boolean controlPlane) {
        return facts(node(name, controlPlane, true, false, null));
    }

    private static LastMomentCheck.Verdict check(NodeFacts started, NodeFacts fresh, List<NodeFacts> cluster, int budget) {
        return LastMomentCheck.check(RUN, started, fresh, cluster, Set.of(started.name()), budget);
    }

    @Test
    void goesWithTheFreshReadsBootIdAndResourceVersion() {
        NodeFacts w1 = draining("w1", false);
        var verdict = assertInstanceOf(LastMomentCheck.Go.class, check(w1, w1, List.of(w1, ready("w2", false)), 1));
        assertEquals("boot-w1", verdict.bootId());
        assertEquals("7", verdict.resourceVersion());
    }

    @Test
    void aDeletedReplacedOrForeignOwnedNodeIsNotTouched() {
        NodeFacts w1 = draining("w1", false);
        assertInstanceOf(LastMomentCheck.HandsOff.class, check(w1, null, List.of(), 1));
        Node replaced = node("w1", false, true, true, RUN + "/draining").editMetadata().withUid("other").endMetadata().build();
        assertInstanceOf(LastMomentCheck.HandsOff.class, check(w1, NodeFacts.of(replaced), List.of(), 1));
        NodeFacts foreign = facts(node("w1", false, true, true, "run-2/draining"));
        var off = assertInstanceOf(LastMomentCheck.HandsOff.class, check(w1, foreign, List.of(foreign), 1));
        assertTrue(off.why().contains("run-2/draining"), off.why());
        NodeFacts released = facts(node("w1", false, true, true, null));
        assertInstanceOf(LastMomentCheck.HandsOff.class, check(w1, released, List.of(released), 1));
    }

    @Test
    void aNodeUncordonedOrWithAnotherInternalIpIsReleasedNotRebooted() {
        NodeFacts w1 = draining("w1", false);
        NodeFacts uncordoned = facts(node("w1", false, true, false, RUN + "/draining"));
        assertInstanceOf(LastMomentCheck.RollBack.class, check(w1, uncordoned, List.of(uncordoned), 1));
        Node moved = node("w1", false, true, true, RUN + "/draining").editStatus().withAddresses()
                .addNewAddress().withType("InternalIP").withAddress("10.9.9.9").endAddress().endStatus().build();
        var back = assertInstanceOf(LastMomentCheck.RollBack.class, check(w1, NodeFacts.of(moved), List.of(NodeFacts.of(moved)), 1));
        assertTrue(back.why().contains("10.9.9.9"), back.why());
    }

    @Test
    void aControlPlaneWaitsWhileAnotherControlPlaneIsNotReady() {
        NodeFacts cp1 = draining("cp1", true);
        NodeFacts cp2 = facts(node("cp2", true, false, false, null));
        var wait = assertInstanceOf(LastMomentCheck.Wait.class, check(cp1, cp1, List.of(cp1, cp2, ready("cp3", true)), 1));
        assertTrue(wait.why().contains("cp2"), wait.why());
        assertInstanceOf(LastMomentCheck.Go.class, check(cp1, cp1, List.of(cp1, ready("cp2", true), ready("cp3", true)), 1));
    }

    @Test
    void aWorkerWaitsWhileTheNodesUnavailableNowUseTheBudget() {
        NodeFacts w1 = draining("w1", false);
        NodeFacts downNow = facts(node("w2", false, false, false, null));
        assertInstanceOf(LastMomentCheck.Wait.class, check(w1, w1, List.of(w1, downNow), 1));
        assertInstanceOf(LastMomentCheck.Go.class, check(w1, w1, List.of(w1, downNow), 2));
        NodeFacts cordonedByOthers = facts(node("w3", false, true, true, null));
        assertInstanceOf(LastMomentCheck.Wait.class, check(w1, w1, List.of(w1, downNow, cordonedByOthers), 2));
    }
}
