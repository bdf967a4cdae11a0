package dev.crifresh.agent.publish;

import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the RFC 6902 JSON Patch that writes only our condition entry of {@code nodes/<name>/status},
 * from the Node as last read. Every form is guarded so that a concurrent change to what the patch
 * relies on makes the server reject it (then the publisher re-reads and retries):
 * <ul>
 *   <li>our entry exists at index i: {@code test /status/conditions/i/type} then {@code replace}
 *       (and extra entries of our type, if any, are removed the same guarded way);</li>
 *   <li>other conditions but not ours: {@code test /metadata/resourceVersion} then
 *       {@code add /status/conditions/-};</li>
 *   <li>no conditions or no status: {@code test /metadata/resourceVersion} then {@code add} of the
 *       whole list (an {@code add} replaces an existing member, so it needs the version guard).</li>
 * </ul>
 * Never a full status replacement: kubelet's conditions are not touched.
 */
public final class ConditionPatch {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String CONDITIONS = "/status/conditions";

    private ConditionPatch() {
    }

    /** Our current entry on the Node, or null. */
    public static NodeCondition ours(Node node) {
        for (NodeCondition c : conditions(node)) {
            if (ConditionContract.CONDITION_TYPE.equals(c.getType())) {
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
            } catch (java.time.format.DateTimeParseException e) {
                transition = at;
            }
        }
        return new DesiredCondition(status, reason, message, at, transition);
    }

    public static String build(Node node, DesiredCondition desired) {
        ArrayNode ops = JSON.createArrayNode();
        ObjectNode entry = entry(desired);
        List<NodeCondition> conditions = conditions(node);
        List<Integer> ourIndexes = new ArrayList<>();
        for (int i = 0; i < conditions.size(); i++) {
            if (ConditionContract.CONDITION_TYPE.equals(conditions.get(i).getType())) {
                ourIndexes.add(i);
            }
        }
        String resourceVersion = node.getMetadata() == null ? null : node.getMetadata().getResourceVersion();
        if (!ourIndexes.isEmpty()) {
            int first = ourIndexes.get(0);
            for (int k = ourIndexes.size() - 1; k >= 1; k--) {
                String path = CONDITIONS + "/" + ourIndexes.get(k);
                ops.add(op("test", path + "/type").put("value", ConditionContract.CONDITION_TYPE));
                ops.add(op("remove", path));
            }
            String path = CONDITIONS + "/" + first;
            ops.add(op("test", path + "/type").put("value", ConditionContract.CONDITION_TYPE));
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
        return JSON.writeValueAsString(ops);
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
