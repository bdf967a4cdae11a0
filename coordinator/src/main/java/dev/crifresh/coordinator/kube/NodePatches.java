package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.Map;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * The JSON Patches (RFC 6902) the coordinator sends on a Node's ownership, each computed from one read of
 * the node and guarded by {@code test} ops on exactly what the decision depends on: the ownership
 * annotation's value, {@code spec.unschedulable}, the node's UID and — before a reboot — its boot id. A
 * concurrent change of any of those makes the server refuse the patch (the mock answers 422, kube-apiserver
 * a 4xx), so a late request cannot undo a newer decision. A status write (the kubelet's, the agent's
 * heartbeat and attestation) touches none of them and no longer fails the patch, as a guard on the whole
 * object's {@code metadata.resourceVersion} did.
 *
 * <p>A {@code test} cannot say "absent" portably (kube-apiserver's json-patch reads {@code null} as
 * "missing", fabric8's mock does not). The claim, which depends on the ownership annotation being absent,
 * is therefore guarded by the resource version it was decided on, like {@link TaintPatches}' empty list;
 * the phase and release patches test values that are present.
 */
public final class NodePatches {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private NodePatches() {
    }

    /**
     * Ownership and cordon in one patch, decided on {@code node} (which carries no ownership): guarded by
     * its resource version and UID; cordons (and records {@code crifresh.dev/cordoned=true}) when {@code cordon}. A node
     * without the cluster autoscaler's {@code scale-down-disabled} annotation gets it ({@code "true"}), recorded with
     * {@code crifresh.dev/scale-down-disabled=true} so that the release removes only what crifresh set.
     */
    public static String claim(Node node, String ownership, boolean cordon) {
        return claim(node, ownership, cordon, null);
    }

    /** Like {@link #claim(Node, String, boolean)}; {@code notCarriedOut}: why an earlier run's record is rolled again, or null. */
    public static String claim(Node node, String ownership, boolean cordon, String notCarriedOut) {
        Ops ops = new Ops(node);
        ops.test("/metadata/resourceVersion", node.getMetadata().getResourceVersion());
        ops.testUid();
        ops.putAnnotation(CrifreshAnnotations.ROLLOUT, ownership);
        if (cordon) {
            ops.putAnnotation(CrifreshAnnotations.CORDONED, "true");
            ops.add("/spec/unschedulable", true);
        }
        if (notCarriedOut != null) {
            ops.putAnnotation(CrifreshAnnotations.NOT_CARRIED_OUT, notCarriedOut);
        }
        if (!ops.annotations.containsKey(ClusterAutoscaler.SCALE_DOWN_DISABLED)) {
            // held nodes are not scaled down meanwhile; an annotation someone else set is theirs, left as it is
            ops.putAnnotation(ClusterAutoscaler.SCALE_DOWN_DISABLED, "true");
            ops.putAnnotation(CrifreshAnnotations.SCALE_DOWN_DISABLED, "true");
        }
        return ops.json();
    }

    /**
     * A new ownership phase of a node this run owns, plus the boot id before a reboot when given: guarded by
     * the ownership value and UID read. With a boot id (phase rebooting, decided by the last-moment check) it
     * also tests that the node still reports that boot id and is still cordoned.
     */
    public static String phase(Node node, String ownership, String bootIdBefore) {
        return phase(node, ownership, bootIdBefore, null);
    }

    /**
     * Like {@link #phase(Node, String, String)}; with a boot id it also records {@code recordedAt} (when given) in
     * {@code crifresh.dev/recorded-at}, so that a later run can judge whether the node stayed up since.
     */
    public static String phase(Node node, String ownership, String bootIdBefore, Instant recordedAt) {
        Ops ops = new Ops(node);
        ops.testPresentAnnotation(CrifreshAnnotations.ROLLOUT);
        ops.testUid();
        if (bootIdBefore != null) {
            ops.test("/status/nodeInfo/bootID", bootIdBefore);
            ops.test("/spec/unschedulable", true);
        }
        ops.putAnnotation(CrifreshAnnotations.ROLLOUT, ownership);
        if (bootIdBefore != null) {
            ops.putAnnotation(CrifreshAnnotations.BOOT_ID, bootIdBefore);
            if (recordedAt != null) {
                ops.putAnnotation(CrifreshAnnotations.RECORDED_AT, recordedAt.toString());
            }
        }
        return ops.json();
    }

    /**
     * Drops every crifresh annotation the node carries; uncordons only when {@code uncordon} (crifresh
     * cordoned it) and the node is still cordoned; removes the autoscaler's {@code scale-down-disabled} only when
     * crifresh recorded setting it. Guarded by the ownership, cordon and annotation values read.
     */
    public static String release(Node node, boolean uncordon) {
        return release(node, uncordon, null);
    }

    /** Like {@link #release(Node, boolean)}; with {@code bootId}, also tests that the node still reports that boot id. */
    public static String release(Node node, boolean uncordon, String bootId) {
        Ops ops = new Ops(node);
        ops.testPresentAnnotation(CrifreshAnnotations.ROLLOUT);
        ops.testUid();
        if (bootId != null) {
            ops.test("/status/nodeInfo/bootID", bootId);
        }
        if ("true".equals(ops.annotations.get(CrifreshAnnotations.SCALE_DOWN_DISABLED))
                && "true".equals(ops.annotations.get(ClusterAutoscaler.SCALE_DOWN_DISABLED))) {
            // only the autoscaler annotation crifresh set, and only while it still holds crifresh's value
            ops.testPresentAnnotation(ClusterAutoscaler.SCALE_DOWN_DISABLED);
            ops.testPresentAnnotation(CrifreshAnnotations.SCALE_DOWN_DISABLED);
            ops.removeAnnotation(ClusterAutoscaler.SCALE_DOWN_DISABLED);
        }
        for (String key : CrifreshAnnotations.ALL) {
            ops.removeAnnotation(key);
        }
        if (uncordon && Boolean.TRUE.equals(node.getSpec() == null ? null : node.getSpec().getUnschedulable())) {
            ops.test("/spec/unschedulable", true);
            ops.remove("/spec/unschedulable");
        }
        return ops.json();
    }

    /** A JSON Pointer segment: {@code ~} and {@code /} escaped (RFC 6901). */
    static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }

    private static final class Ops {
        private final Node node;
        private final Map<String, String> annotations;
        private final ArrayNode ops = JSON.createArrayNode();
        private boolean annotationsCreated;

        Ops(Node node) {
            this.node = node;
            Map<String, String> a = node.getMetadata().getAnnotations();
            this.annotations = a == null ? Map.of() : a;
        }

        void test(String path, String value) {
            ops.addObject().put("op", "test").put("path", path).put("value", value);
        }

        void test(String path, boolean value) {
            ops.addObject().put("op", "test").put("path", path).put("value", value);
        }

        void testUid() {
            if (node.getMetadata().getUid() != null) {
                test("/metadata/uid", node.getMetadata().getUid());
            }
        }

        void testPresentAnnotation(String key) {
            String value = annotations.get(key);
            if (value == null) {
                throw new IllegalArgumentException("node " + node.getMetadata().getName() + " carries no " + key);
            }
            test("/metadata/annotations/" + escape(key), value);
        }

        void add(String path, boolean value) {
            ops.addObject().put("op", "add").put("path", path).put("value", value);
        }

        void remove(String path) {
            ops.addObject().put("op", "remove").put("path", path);
        }

        /** Adds or replaces one annotation; creates the map when the node has none (fabric8 reads absent as empty). */
        void putAnnotation(String key, String value) {
            if (annotations.isEmpty() && !annotationsCreated) {
                // Only the claim meets a node without annotations, and it is guarded by the resource version.
                ops.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value").put(key, value);
                annotationsCreated = true;
                return;
            }
            ops.addObject().put("op", "add").put("path", "/metadata/annotations/" + escape(key)).put("value", value);
        }

        /** Removes the annotation when the read shows it (a remove of a missing key fails the whole patch). */
        void removeAnnotation(String key) {
            if (annotations.containsKey(key)) {
                remove("/metadata/annotations/" + escape(key));
            }
        }

        String json() {
            return JSON.writeValueAsString(ops);
        }
    }
}
