package dev.crifresh.agent.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.crifresh.common.evidence.KubeletReady;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The kubelet's Ready condition as the witness reads it, and the tap on the agent's one Node watch. */
class ReadyConditionTest {
    private static NodeCondition condition(String type, String status, String message) {
        return new NodeConditionBuilder().withType(type).withStatus(status).withReason("R").withMessage(message).build();
    }

    private static Node node(NodeCondition... conditions) {
        return new NodeBuilder().withNewMetadata().withName("worker-1").endMetadata()
                .withNewStatus().withConditions(conditions).endStatus().build();
    }

    @Test
    void theReadyConditionIsReadAndOnlyIt() {
        assertEquals(new KubeletReady("False", "R", "container runtime is down"), ReadyCondition.of(node(
                condition("ContainerdConfigFresh", "True", "ours"), condition("Ready", "False",
                        "container runtime is down"))));
        assertNull(ReadyCondition.of(node(condition("ContainerdConfigFresh", "True", "ours"))), "no Ready: no reading");
        assertNull(ReadyCondition.of(new NodeBuilder().withNewMetadata().withName("worker-1").endMetadata().build()));
        assertNull(ReadyCondition.of(null));
    }

    @Test
    void theTapHandsEveryWatchedNodesReadyOnBeforeTheWatcherSeesIt() throws Exception {
        List<String> seen = new ArrayList<>();
        NodeApi fake = new NodeApi() {
            @Override
            public Node get(String name) {
                return null;
            }

            @Override
            public void patchStatus(String name, String jsonPatch) {
            }

            @Override
            public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
                onNode.accept(node(condition("Ready", "True", "kubelet is posting ready status")));
                onNode.accept(node());
                return () -> { };
            }
        };
        NodeApi tapped = new ReadyTap(fake, ready -> seen.add("ready " + (ready == null ? null : ready.status())));
        tapped.watch("worker-1", n -> seen.add("node"), t -> { }).close();
        assertEquals(List.of("ready True", "node", "ready null", "node"), seen);
    }
}
