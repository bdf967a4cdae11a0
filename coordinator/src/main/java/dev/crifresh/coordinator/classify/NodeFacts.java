package dev.crifresh.coordinator.classify;

import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.base.InternalIps;
import dev.crifresh.coordinator.base.NodeAction;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
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
 * @param kubelet     the {@code Ready} condition's times, each null when absent or unreadable
 * @param taintKeys   the keys of the Node's taints, in its order
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
        String osImage,
        ReadyTimes kubelet,
        List<String> taintKeys) implements NodeAction.Subject {

    /**
     * The {@code Ready} condition's times as the kubelet (or, for {@code Unknown}, the node lifecycle controller)
     * wrote them: {@code since} its last transition, {@code heartbeat} the kubelet's last status report.
     */
    public record ReadyTimes(Instant since, Instant heartbeat) {
        public static final ReadyTimes NONE = new ReadyTimes(null, null);

        static ReadyTimes of(NodeCondition ready) {
            return new ReadyTimes(time(ready.getLastTransitionTime()), time(ready.getLastHeartbeatTime()));
        }

        /** An RFC 3339 time as the API server writes it, or null when absent or unreadable. */
        public static Instant time(String value) {
            if (value == null || value.isBlank()) {
                return null;
            }
            try {
                return OffsetDateTime.parse(value).toInstant();
            } catch (DateTimeParseException e) {
                return null;
            }
        }
    }

    public NodeFacts {
        internalIps = List.copyOf(internalIps);
        annotations = Map.copyOf(annotations);
        kubelet = kubelet == null ? ReadyTimes.NONE : kubelet;
        taintKeys = taintKeys == null ? List.of() : List.copyOf(taintKeys);
    }

    /** The facts of every node of one list, in its order. */
    public static List<NodeFacts> all(List<Node> nodes) {
        return nodes.stream().map(NodeFacts::of).toList();
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
        ReadyTimes kubelet = ReadyTimes.NONE;
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
                        kubelet = ReadyTimes.of(c);
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
                bootId == null || bootId.isBlank() ? null : bootId, ready, unschedulable, InternalIps.all(node), annotations, attestation, osImage,
                kubelet, taintKeys(node));
    }

    private static List<String> taintKeys(Node node) {
        if (node.getSpec() == null || node.getSpec().getTaints() == null) {
            return List.of();
        }
        return node.getSpec().getTaints().stream().map(t -> t.getKey()).filter(k -> k != null).toList();
    }

    /** Whether the Node carries a taint with this key (any effect). */
    public boolean tainted(String key) {
        return taintKeys.contains(key);
    }

    /** Not Ready or cordoned: such a node already counts against the unavailability budget. */
    public boolean unavailable() {
        return !ready || unschedulable;
    }

    public String annotation(String key) {
        return annotations.get(key);
    }
}
