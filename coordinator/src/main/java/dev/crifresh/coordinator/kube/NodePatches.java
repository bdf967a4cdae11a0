package dev.crifresh.coordinator.kube;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON merge patches (RFC 7396) the coordinator sends. Objects only — merge patches replace
 * arrays wholesale, and fabric8's mock server gets arrays wrong. A null value deletes the key.
 */
public final class NodePatches {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private NodePatches() {
    }

    /**
     * Ownership and cordon in one atomic patch, guarded by the resource version the decision to mark
     * the node as cordoned-by-crifresh was taken on (a concurrent change makes the server answer 409).
     */
    public static String ownAndCordon(String ownership, boolean cordon, String resourceVersion) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode meta = root.putObject("metadata");
        if (resourceVersion != null) {
            meta.put("resourceVersion", resourceVersion);
        }
        ObjectNode ann = meta.putObject("annotations");
        ann.put(CrifreshAnnotations.ROLLOUT, ownership);
        if (cordon) {
            ann.put(CrifreshAnnotations.CORDONED, "true");
            root.putObject("spec").put("unschedulable", true);
        }
        return JSON.writeValueAsString(root);
    }

    /**
     * The ownership phase, plus the boot id before a reboot when given; guarded by the resource version of
     * the read that found the node still owned by this run (null: unguarded).
     */
    public static String phase(String ownership, String bootIdBefore, String resourceVersion) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode ann = guarded(root, resourceVersion).putObject("annotations");
        ann.put(CrifreshAnnotations.ROLLOUT, ownership);
        if (bootIdBefore != null) {
            ann.put(CrifreshAnnotations.BOOT_ID, bootIdBefore);
        }
        return JSON.writeValueAsString(root);
    }

    /**
     * Drops every crifresh annotation; uncordons only when crifresh cordoned the node. Guarded by the
     * resource version of the read that found the ownership it releases (null: unguarded).
     */
    public static String release(boolean uncordon, String resourceVersion) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode ann = guarded(root, resourceVersion).putObject("annotations");
        ann.putNull(CrifreshAnnotations.ROLLOUT);
        ann.putNull(CrifreshAnnotations.CORDONED);
        ann.putNull(CrifreshAnnotations.BOOT_ID);
        if (uncordon) {
            root.putObject("spec").putNull("unschedulable");
        }
        return JSON.writeValueAsString(root);
    }

    private static ObjectNode guarded(ObjectNode root, String resourceVersion) {
        ObjectNode meta = root.putObject("metadata");
        if (resourceVersion != null) {
            meta.put("resourceVersion", resourceVersion);
        }
        return meta;
    }
}
