package dev.crifresh.coordinator.classify;

import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.driver.InternalIps;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the coordinator reads from a Node object, in one immutable value.
 *
 * @param annotations annotations with a non-null value (a JSON merge patch that sets an annotation to
 *                    null deletes it on a real API server; fabric8's mock keeps a null entry instead)
 * @param attestation the {@code ContainerdConfigFresh} condition, or null when absent (see
 *                    {@link AttestationCondition#duplicated()} when the Node has several)
 * @param osImage     the Node's {@code status.nodeInfo.osImage} (e.g. {@code Talos (v1.14.1)}), or null
 */
public record NodeFacts(
        String name,
        String uid,
        String resourceVersion,
        Role role,
        String bootId,
        boolean ready,
        boolean unschedulable,
        List<String> internalIps,
        Map<String, String> annotations,
        AttestationCondition attestation,
        String osImage) {

    public NodeFacts {
        internalIps = List.copyOf(internalIps);
        annotations = Map.copyOf(annotations);
    }

    public static NodeFacts of(Node node) {
        var meta = node.getMetadata();
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        Role role = labels.containsKey(Role.CONTROL_PLANE_LABEL) ? Role.CONTROL_PLANE : Role.WORKER;
        Map<String, String> annotations = new LinkedHashMap<>();
        if (meta.getAnnotations() != null) {
            meta.getAnnotations().forEach((k, v) -> {
                if (k != null && v != null) {
                    annotations.put(k, v);
                }
            });
        }
        boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        String bootId = null;
        String osImage = null;
        boolean ready = false;
        AttestationCondition attestation = null;
        var status = node.getStatus();
        if (status != null) {
            if (status.getNodeInfo() != null) {
                bootId = status.getNodeInfo().getBootID();
                osImage = status.getNodeInfo().getOsImage();
            }
            if (status.getConditions() != null) {
                for (NodeCondition c : status.getConditions()) {
                    if ("Ready".equals(c.getType())) {
                        ready = "True".equals(c.getStatus());
                    } else if (ConditionContract.CONDITION_TYPE.equals(c.getType())) {
                        // Never pick one of several entries: a duplicate makes the node unknown.
                        attestation = attestation == null
                                ? new AttestationCondition(c.getStatus(), c.getReason(), c.getMessage())
                                : attestation.withAnotherEntry();
                    }
                }
            }
        }
        return new NodeFacts(meta.getName(), meta.getUid(), meta.getResourceVersion(), role,
                bootId == null || bootId.isBlank() ? null : bootId, ready, unschedulable, InternalIps.all(node), annotations, attestation, osImage);
    }

    /** Not Ready or cordoned: such a node already counts against the unavailability budget. */
    public boolean unavailable() {
        return !ready || unschedulable;
    }

    public String annotation(String key) {
        return annotations.get(key);
    }
}
