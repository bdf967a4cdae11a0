package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.List;

/** The Node operations the coordinator needs. Futures complete on the coordinator's context. */
public interface NodeOps {

    /** The selected nodes. */
    Future<List<Node>> list();

    /** Every node of the cluster, selected or not (the last-moment safety checks read them fresh). */
    Future<List<Node>> listAll();

    /** The node, or null when it does not exist. */
    Future<Node> get(String name);

    /** A JSON merge patch (RFC 7396) of objects only; returns the patched node. */
    Future<Node> mergePatch(String name, String patch);

    /** A JSON Patch (RFC 6902), guarded by its {@code test} ops (a failed test fails with 422); returns the patched node. */
    Future<Node> jsonPatch(String name, String patch);

    /**
     * The same operations with {@code gate} checked on the worker thread right before each patch is sent. No
     * default: every implementation says how it keeps the run's fence (one without worker threads or writes of
     * its own may return itself, a decorator gates what it wraps).
     */
    NodeOps gated(WriteGate gate);

    /** Starts an informer on the selected nodes; the future completes once its first list is in. */
    Future<NodeWatch> watch(NodeEvents events);

    /**
     * Starts an informer on every node of the cluster, selected or not: the safety checks (other control
     * planes Ready, nodes already unavailable) must see nodes a node selector leaves out.
     */
    Future<NodeWatch> watchAll(NodeEvents events);

    interface NodeEvents {
        void upsert(Node node);

        void deleted(String name);
    }

    interface NodeWatch {
        List<Node> snapshot();

        void close();
    }
}
