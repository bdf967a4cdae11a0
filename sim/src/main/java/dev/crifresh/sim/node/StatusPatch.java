package dev.crifresh.sim.node;

import dev.crifresh.agent.publish.ConditionPatch;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.function.Function;
import tools.jackson.databind.node.ArrayNode;

/**
 * Writes one Node condition (and optionally the boot id) with the agent's guarded JSON Patch
 * ({@link ConditionPatch}) on {@code nodes/<name>/status}, so a concurrent writer (kubelet, agent) never
 * loses its own conditions; a rejected patch is re-read and retried. The mock server rejects
 * strategic-merge patches, and a full status PUT would clobber other writers, so this is what every
 * simulated writer uses.
 */
public final class StatusPatch {
    private static final int ATTEMPTS = 8;

    private StatusPatch() {
    }

    /**
     * @param update the new condition (of {@code type}), given the current one of that type (null when absent)
     * @param bootId a new {@code status.nodeInfo.bootID}, or null to leave it
     */
    public static void putCondition(KubernetesClient client, String nodeName, String type,
            Function<NodeCondition, NodeCondition> update, String bootId) {
        KubernetesClientException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Node node = client.nodes().withName(nodeName).get();
            if (node == null) {
                throw new IllegalStateException("node " + nodeName + " does not exist");
            }
            NodeCondition next = update.apply(ConditionPatch.find(node, type));
            if (!type.equals(next.getType())) {
                throw new IllegalArgumentException("asked to write a " + type + " condition, got " + next.getType());
            }
            ArrayNode patch = ConditionPatch.ops(node, next);
            if (bootId != null) {
                patch.addObject().put("op", "replace").put("path", "/status/nodeInfo/bootID").put("value", bootId);
            }
            try {
                // resource(node), not withName(name): fabric8's patch of a named resource GETs it first, only for its name
                client.nodes().resource(node).subresource("status")
                        .patch(PatchContext.of(PatchType.JSON), patch.toString());
                return;
            } catch (KubernetesClientException e) {
                last = e;
            }
        }
        throw new IllegalStateException("could not patch the status of node " + nodeName + ": "
                + (last == null ? "" : last.getMessage()), last);
    }
}
