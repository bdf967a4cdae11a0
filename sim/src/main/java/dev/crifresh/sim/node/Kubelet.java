package dev.crifresh.sim.node;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The part of a kubelet the coordinator sees: the Ready condition (with heartbeats while the node is up)
 * and the boot id in {@code status.nodeInfo}, written through JSON Patches that leave every other
 * condition alone.
 *
 * <p>Ready and NotReady are posted on {@code posts}, in order per node and beside the platform thread, as
 * every node's kubelet posts on its own: a wave of nodes going down or coming back together must not queue
 * behind each other's API calls.
 */
public final class Kubelet {
    private final KubernetesClient client;
    private final Executor posts;
    /** Per node, the last post queued: the next one runs after it. */
    private final Map<String, CompletableFuture<Void>> lastPost = new ConcurrentHashMap<>();

    public Kubelet(KubernetesClient client, Executor posts) {
        this.client = client;
        this.posts = posts;
    }

    /** Posts Ready or NotReady; the transition time moves only when the status flips. */
    public CompletableFuture<Void> post(String node, boolean ready) {
        return inOrder(node, () -> postReady(node, ready, null));
    }

    /** After a boot: the new boot id and Ready in one status update, as the kubelet registers. */
    public CompletableFuture<Void> registerBoot(String node, String bootId) {
        return inOrder(node, () -> postReady(node, true, bootId));
    }

    private CompletableFuture<Void> inOrder(String node, Runnable post) {
        return lastPost.compute(node, (name, previous) -> (previous == null ? CompletableFuture.<Void>completedFuture(null)
                : previous.handle((done, failed) -> (Void) null)).thenRunAsync(post, posts));
    }

    /** A status heartbeat: only {@code lastHeartbeatTime} of Ready changes. */
    public void heartbeat(String node) {
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
