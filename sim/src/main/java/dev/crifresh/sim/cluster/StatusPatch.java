package dev.crifresh.sim.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes one Node condition (and optionally the boot id) with a JSON Patch on {@code nodes/<name>/status},
 * guarded by a {@code test} of the entry's type, so a concurrent writer (kubelet, agent) never loses its
 * own conditions; a rejected patch is re-read and retried. The mock server rejects strategic-merge
 * patches, and a full status PUT would clobber other writers, so this is what every simulated writer uses.
 */
final class StatusPatch {
    private static final int ATTEMPTS = 8;

    private StatusPatch() {
    }

    /**
     * @param update the new condition, given the current one of that type (null when absent)
     * @param bootId a new {@code status.nodeInfo.bootID}, or null to leave it
     */
    static void putCondition(KubernetesClient client, String nodeName, String type,
            Function<NodeCondition, NodeCondition> update, String bootId) {
        KubernetesClientException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Node node = client.nodes().withName(nodeName).get();
            if (node == null) {
                throw new IllegalStateException("node " + nodeName + " does not exist");
            }
            List<NodeCondition> conditions = node.getStatus() == null ? null : node.getStatus().getConditions();
            ArrayNode patch = JsonNodeFactory.instance.arrayNode();
            int index = indexOf(conditions, type);
            NodeCondition next = update.apply(index < 0 ? null : conditions.get(index));
            if (conditions == null) {
                patch.addObject().put("op", "add").put("path", "/status/conditions")
                        .set("value", JsonNodeFactory.instance.arrayNode().add(tree(next)));
            } else if (index < 0) {
                patch.addObject().put("op", "test").put("path", "/status/conditions")
                        .set("value", Serialization.jsonMapper().valueToTree(conditions));
                patch.addObject().put("op", "add").put("path", "/status/conditions/-").set("value", tree(next));
            } else {
                patch.addObject().put("op", "test").put("path", "/status/conditions/" + index + "/type")
                        .put("value", type);
                patch.addObject().put("op", "replace").put("path", "/status/conditions/" + index)
                        .set("value", tree(next));
            }
            if (bootId != null) {
                patch.addObject().put("op", "replace").put("path", "/status/nodeInfo/bootID").put("value", bootId);
            }
            try {
                client.nodes().withName(nodeName).subresource("status")
                        .patch(PatchContext.of(PatchType.JSON), patch.toString());
                return;
            } catch (KubernetesClientException e) {
                last = e;
            }
        }
        throw new IllegalStateException("could not patch the status of node " + nodeName + ": "
                + (last == null ? "" : last.getMessage()), last);
    }

    private static int indexOf(List<NodeCondition> conditions, String type) {
        if (conditions == null) {
            return -1;
        }
        for (int i = 0; i < conditions.size(); i++) {
            if (type.equals(conditions.get(i).getType())) {
                return i;
            }
        }
        return -1;
    }

    private static ObjectNode tree(NodeCondition condition) {
        return Serialization.jsonMapper().valueToTree(condition);
    }
}
