package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Patches (RFC 6902) that add or remove one taint, each guarded by a {@code test} of exactly what it
 * was computed from, so a concurrent change to the taints makes the server refuse it (422) instead of
 * losing someone else's taint. {@code spec.taints} is an array: a JSON merge patch would replace it
 * wholesale (and fabric8's mock server gets merge patches of arrays wrong); a strategic-merge patch is
 * refused by the mock. JSON Patch with {@code test} behaves the same on both.
 */
public final class TaintPatches {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private TaintPatches() {
    }

    /** The node's taints (never null). */
    public static List<Taint> taints(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    /** The node's taint with this key, or null. */
    public static Taint find(Node node, String key) {
        return taints(node).stream().filter(t -> key.equals(t.getKey())).findFirst().orElse(null);
    }

    /**
     * Puts the taint {@code key=value:effect} on the node: appended (guarded by a test of the whole current
     * list), or replacing an entry with the same key (guarded by a test of that entry); with no taints at
     * all (absent or empty), guarded by the node's resource version. Null when the node carries exactly this taint already.
     */
    public static String put(Node node, String key, String value, String effect) {
        List<Taint> taints = taints(node);
        ArrayNode ops = JSON.createArrayNode();
        ObjectNode wanted = JSON.createObjectNode().put("key", key).put("value", value).put("effect", effect);
        for (int i = 0; i < taints.size(); i++) {
            Taint t = taints.get(i);
            if (key.equals(t.getKey())) {
                if (value.equals(t.getValue()) && effect.equals(t.getEffect())) {
                    return null;
                }
                ops.addObject().put("op", "test").put("path", "/spec/taints/" + i).set("value", json(t));
                ops.addObject().put("op", "replace").put("path", "/spec/taints/" + i).set("value", wanted);
                return JSON.writeValueAsString(ops);
            }
        }
        if (taints.isEmpty()) {
            // fabric8's model reads an absent list as empty: the two cannot be told apart here, so a guard on
            // the resource version stands in for a test of the list, and "add" creates or replaces it.
            ops.addObject().put("op", "test").put("path", "/metadata/resourceVersion")
                    .put("value", node.getMetadata().getResourceVersion());
            if (node.getSpec() == null) {
                ops.addObject().put("op", "add").put("path", "/spec").putObject("value").putArray("taints").add(wanted);
            } else {
                ops.addObject().put("op", "add").put("path", "/spec/taints").putArray("value").add(wanted);
            }
        } else {
            ArrayNode current = JSON.createArrayNode();
            taints.forEach(t -> current.add(json(t)));
            ops.addObject().put("op", "test").put("path", "/spec/taints").set("value", current);
            ops.addObject().put("op", "add").put("path", "/spec/taints/-").set("value", wanted);
        }
        return JSON.writeValueAsString(ops);
    }

    /** Removes every taint with this key, each guarded by a test of that entry; null when there is none. */
    public static String remove(Node node, String key) {
        List<Taint> taints = taints(node);
        ArrayNode ops = JSON.createArrayNode();
        // From the end, so the indexes of the entries still to remove stay valid.
        for (int i = taints.size() - 1; i >= 0; i--) {
            Taint t = taints.get(i);
            if (key.equals(t.getKey())) {
                ops.addObject().put("op", "test").put("path", "/spec/taints/" + i).set("value", json(t));
                ops.addObject().put("op", "remove").put("path", "/spec/taints/" + i);
            }
        }
        return ops.isEmpty() ? null : JSON.writeValueAsString(ops);
    }

    /** A taint as the API server stores it: only the fields that are set. */
    static ObjectNode json(Taint t) {
        ObjectNode o = JSON.createObjectNode();
        if (t.getKey() != null) {
            o.put("key", t.getKey());
        }
        if (t.getValue() != null) {
            o.put("value", t.getValue());
        }
        if (t.getEffect() != null) {
            o.put("effect", t.getEffect());
        }
        if (t.getTimeAdded() != null) {
            o.put("timeAdded", t.getTimeAdded());
        }
        return o;
    }
}
