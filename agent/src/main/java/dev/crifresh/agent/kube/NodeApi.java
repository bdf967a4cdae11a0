package dev.crifresh.agent.kube;

import dev.crifresh.common.retry.RetryPolicy;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The three Node operations the agent needs, behind an interface so the publisher's logic does not
 * depend on the client library. Blocking: call on a worker thread.
 */
public interface NodeApi {
    /**
     * How the agent retries the API (publishing, watching): 500 ms doubling to 30 s, each delay drawn between half
     * and all of that, so many agents that lost the API at once do not return in step; no deadline.
     */
    RetryPolicy RETRY = RetryPolicy.doubling(Duration.ofMillis(500), Duration.ofSeconds(30)).withJitter(0.5, Math::random);

    /** The Node, or null when it does not exist. */
    Node get(String name) throws ApiException;

    /** Applies an RFC 6902 JSON Patch to {@code nodes/<name>/status}. */
    void patchStatus(String name, String jsonPatch) throws ApiException;

    /**
     * Watches one Node (list + watch, re-established after errors). {@code onNode} receives the Node
     * after every add or update, on a client thread.
     *
     * @return closes the watch
     */
    AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError);
}
