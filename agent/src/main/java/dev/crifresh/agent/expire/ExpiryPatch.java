package dev.crifresh.agent.expire;

import dev.crifresh.agent.publish.ConditionPatch;
import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON Patch of a downgrade: {@code Unknown}/{@link ExpiryRule#REASON} in place of the entry as read,
 * and only while it is still that entry (a {@code test} of its status and message): an agent that published
 * in the meantime wins, and the patch is refused with a 422.
 */
public final class ExpiryPatch {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ExpiryPatch() {
    }

    public static String build(Node node, Judgement.Downgrade downgrade, Instant now) {
        NodeCondition before = downgrade.before();
        Instant at = now.truncatedTo(ChronoUnit.SECONDS);
        NodeCondition after = new NodeConditionBuilder()
                .withType(ConditionContract.CONDITION_TYPE)
                .withStatus(ExpiryRule.UNKNOWN)
                .withReason(ExpiryRule.REASON)
                .withMessage(downgrade.message())
                // when the agent last wrote: the heartbeat is the agent's, not ours
                .withLastHeartbeatTime(before.getLastHeartbeatTime() == null ? at.toString() : before.getLastHeartbeatTime())
                .withLastTransitionTime(at.toString())
                .build();
        int index = indexOf(node, before);
        ArrayNode ops = ConditionPatch.ops(node, after);
        String path = "/status/conditions/" + index;
        ArrayNode guarded = JSON.createArrayNode();
        guarded.add(test(path + "/status", before.getStatus()));
        guarded.add(test(path + "/message", before.getMessage()));
        guarded.addAll(ops);
        return JSON.writeValueAsString(guarded);
    }

    private static int indexOf(Node node, NodeCondition entry) {
        List<NodeCondition> conditions = node.getStatus().getConditions();
        for (int i = 0; i < conditions.size(); i++) {
            if (conditions.get(i) == entry) {
                return i;
            }
        }
        throw new IllegalArgumentException("the condition to downgrade is not on Node "
                + node.getMetadata().getName());
    }

    private static ObjectNode test(String path, String value) {
        ObjectNode op = JSON.createObjectNode();
        op.put("op", "test");
        op.put("path", path);
        if (value == null) {
            op.putNull("value");
        } else {
            op.put("value", value);
        }
        return op;
    }
}
