package dev.crifresh.agent.publish;

import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the RFC 6902 JSON Patch that writes only one condition entry (ours, or any other type via
 * {@link #ops(Node, NodeCondition)}) of {@code nodes/<name>/status}, from the Node as last read. Every form is guarded so that a concurrent change to what the patch
 * relies on makes the server reject it (then the publisher re-reads and retries):
 * <ul>
 *   <li>an entry of the type exists at index i: {@code test /status/conditions/i/type} then {@code replace}
 *       (and extra entries of the type, if any, are removed the same guarded way);</li>
 *   <li>other conditions but none of the type: {@code test /metadata/resourceVersion} then
 *       {@code add /status/conditions/-};</li>
 *   <li>no conditions or no status: {@code test /metadata/resourceVersion} then {@code add} of the
 *       whole list (an {@code add} replaces an existing member, so it needs the version guard).</li>
 * </ul>
 * Never a full status replacement: other writers' conditions are not touched.
 */
public final class ConditionPatch {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** fabric8's own serialisation: a condition of any type is written as the client writes it. */
    private static final KubernetesSerialization KUBERNETES = new KubernetesSerialization();
    private static final String CONDITIONS = "/status/conditions";

    private ConditionPatch() {
    }

    /** Our current entry on the Node, or null. */
    public static NodeCondition ours(Node node) {
        return find(node, ConditionContract.CONDITION_TYPE);
    }

    /** The Node's first condition of {@code type}, or null. */
    public static NodeCondition find(Node node, String type) {
        for (NodeCondition c : conditions(node)) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    /**
     * The condition to write: {@code lastTransitionTime} carries over from the Node's entry when the
     * status did not change, else it is {@code now}.
     */
    public static DesiredCondition desired(Node node, String status, String reason, String message, Instant now) {
        Instant at = now.truncatedTo(ChronoUnit.SECONDS);
        NodeCondition current = ours(node);
        Instant transition = at;
        if (current != null && status.equals(current.getStatus()) && current.getLastTransitionTime() != null
                && !current.getLastTransitionTime().isBlank()) {
            try {
                transition = Instant.parse(current.getLastTransitionTime());
            } catch (DateTimeParseException e) {
                transition = at;
            }
        }
        return new DesiredCondition(status, reason, message, at, transition);
    }

    public static String build(Node node, DesiredCondition desired) {
        return JSON.writeValueAsString(ops(node, ConditionContract.CONDITION_TYPE, entry(desired)));
    }

    /**
     * The guarded operations that write {@code condition} as the Node's entry of its type; the caller
     * may append operations of its own before sending them.
     */
    public static ArrayNode ops(Node node, NodeCondition condition) {
        if (condition.getType() == null || condition.getType().isEmpty()) {
            throw new IllegalArgumentException("a condition needs a type");
        }
        return ops(node, condition.getType(), KUBERNETES.convertValue(condition, ObjectNode.class));
    }

    private static ArrayNode ops(Node node, String type, ObjectNode entry) {
        ArrayNode ops = JSON.createArrayNode();
        List<NodeCondition> conditions = conditions(node);
        List<Integer> ofType = new ArrayList<>();
        for (int i = 0; i < conditions.size(); i++) {
            if (type.equals(conditions.get(i).getType())) {
                ofType.add(i);
            }
        }
        String resourceVersion = node.getMetadata() == null ? null : node.getMetadata().getResourceVersion();
        if (!ofType.isEmpty()) {
            int first = ofType.get(0);
            for (int k = ofType.size() - 1; k >= 1; k--) {
                String path = CONDITIONS + "/" + ofType.get(k);
                ops.add(op("test", path + "/type").put("value", type));
                ops.add(op("remove", path));
            }
            String path = CONDITIONS + "/" + first;
            ops.add(op("test", path + "/type").put("value", type));
            ops.add(op("replace", path).set("value", entry));
        } else {
            if (resourceVersion == null || resourceVersion.isEmpty()) {
                throw new IllegalArgumentException("a Node read from the API always has a resourceVersion");
            }
            ops.add(op("test", "/metadata/resourceVersion").put("value", resourceVersion));
            if (node.getStatus() == null) {
                ObjectNode status = JSON.createObjectNode();
                status.set("conditions", JSON.createArrayNode().add(entry));
                ops.add(op("add", "/status").set("value", status));
            } else if (conditions.isEmpty()) {
                ops.add(op("add", CONDITIONS).set("value", JSON.createArrayNode().add(entry)));
            } else {
                ops.add(op("add", CONDITIONS + "/-").set("value", entry));
            }
        }
        return ops;
    }

    private static ObjectNode entry(DesiredCondition d) {
        ObjectNode e = JSON.createObjectNode();
        e.put("type", ConditionContract.CONDITION_TYPE);
        e.put("status", d.status());
        e.put("reason", d.reason());
        e.put("message", d.message());
        e.put("lastHeartbeatTime", d.lastHeartbeatTime().toString());
        e.put("lastTransitionTime", d.lastTransitionTime().toString());
        return e;
    }

    private static ObjectNode op(String name, String path) {
        ObjectNode o = JSON.createObjectNode();
        o.put("op", name);
        o.put("path", path);
        return o;
    }

    private static List<NodeCondition> conditions(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return List.of();
        }
        return node.getStatus().getConditions();
    }
}
