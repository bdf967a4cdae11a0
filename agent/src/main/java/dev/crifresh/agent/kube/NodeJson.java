package dev.crifresh.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The part of a Node's JSON the agent reads — name, UID, resourceVersion, whether there is a status,
 * and the conditions — as a fabric8 {@link Node}, without binding the whole Node (images, addresses,
 * capacity: dozens of model classes the agent never looks at).
 */
final class NodeJson {
    private NodeJson() {
    }

    static Node read(JsonNode json) {
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("a Node is a JSON object");
        }
        Node node = new Node();
        node.setApiVersion("v1");
        node.setKind("Node");
        JsonNode metadata = json.path("metadata");
        ObjectMeta meta = new ObjectMeta();
        meta.setName(text(metadata, "name"));
        meta.setUid(text(metadata, "uid"));
        meta.setResourceVersion(text(metadata, "resourceVersion"));
        node.setMetadata(meta);
        JsonNode status = json.get("status");
        if (status != null && status.isObject()) {
            NodeStatus nodeStatus = new NodeStatus();
            List<NodeCondition> conditions = new ArrayList<>();
            JsonNode list = status.get("conditions");
            if (list != null && list.isArray()) {
                for (JsonNode c : list) {
                    conditions.add(condition(c));
                }
            }
            nodeStatus.setConditions(conditions);
            node.setStatus(nodeStatus);
        }
        return node;
    }

    private static NodeCondition condition(JsonNode c) {
        NodeCondition condition = new NodeCondition();
        condition.setType(text(c, "type"));
        condition.setStatus(text(c, "status"));
        condition.setReason(text(c, "reason"));
        condition.setMessage(text(c, "message"));
        condition.setLastHeartbeatTime(text(c, "lastHeartbeatTime"));
        condition.setLastTransitionTime(text(c, "lastTransitionTime"));
        return condition;
    }

    private static String text(JsonNode parent, String field) {
        JsonNode value = parent.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }
}
