package dev.crifresh.agent.kube;

import dev.crifresh.common.evidence.KubeletReady;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;

/** The kubelet's Ready condition of a Node, as the evidence rules read it ({@link KubeletReady}). */
public final class ReadyCondition {
    private ReadyCondition() {
    }

    /** The Node's Ready condition, or null when it has none (or no status). */
    public static KubeletReady of(Node node) {
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        for (NodeCondition c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return new KubeletReady(c.getStatus(), c.getReason(), c.getMessage());
            }
        }
        return null;
    }
}
