package dev.crifresh.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import java.util.function.Consumer;

/**
 * The three Node operations the agent needs, behind an interface so the publisher's logic does not
 * depend on the client library. Blocking: call on a worker thread.
 */
public interface NodeApi {

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
