package dev.crifresh.sim.cluster;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;

/**
 * The part of a kubelet the coordinator sees: the Ready condition (with heartbeats while the node is up)
 * and the boot id in {@code status.nodeInfo}, written through JSON Patches that leave every other
 * condition alone.
 */
final class Kubelet {
    private final KubernetesClient client;

    Kubelet(KubernetesClient client) {
        this.client = client;
    }

    /** Posts Ready or NotReady; the transition time moves only when the status flips. */
    void post(String node, boolean ready) {
        postReady(node, ready, null);
    }

    /** After a boot: the new boot id and Ready in one status update, as the kubelet registers. */
    void registerBoot(String node, String bootId) {
        postReady(node, true, bootId);
    }

    /** A status heartbeat: only {@code lastHeartbeatTime} of Ready changes. */
    void heartbeat(String node) {
        StatusPatch.putCondition(client, node, "Ready", current -> {
            NodeCondition next = current == null ? NodeObjects.readyCondition(true, Instant.now()) : current;
            next.setLastHeartbeatTime(Instant.now().toString());
            return next;
        }, null);
    }

    private void postReady(String node, boolean ready, String bootId) {
        StatusPatch.putCondition(client, node, "Ready", current -> {
            Instant now = Instant.now();
            NodeCondition next = NodeObjects.readyCondition(ready, now);
            if (current != null && next.getStatus().equals(current.getStatus())) {
                next.setLastTransitionTime(current.getLastTransitionTime());
            }
            return next;
        }, bootId);
    }
}
