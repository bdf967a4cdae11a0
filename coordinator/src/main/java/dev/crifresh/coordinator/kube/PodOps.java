package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import java.util.List;

/** Pods on a node, a watch on them, and their eviction through the Eviction API. */
public interface PodOps {

    Future<List<Pod>> podsOn(String node);

    /**
     * Starts watching the pods on {@code node} (list, then watch). {@code changed} runs on the coordinator's
     * context after each change of one of the node's pods; the future completes once the first list is in.
     */
    Future<PodWatch> watchPodsOn(String node, Runnable changed);

    /** One eviction attempt, without retries: a PDB-blocked eviction answers {@link Eviction#BLOCKED}. */
    Future<Eviction> evict(String namespace, String name);

    /**
     * The same operations with {@code gate} checked on the worker thread right before each eviction is sent. No
     * default: every implementation says how it keeps the run's fence (one without worker threads may return
     * itself, a decorator gates what it wraps).
     */
    PodOps gated(WriteGate gate);

    enum Eviction {
        /** The API server accepted the eviction; the pod terminates. */
        EVICTED,
        /** 429: a PodDisruptionBudget does not allow it now. */
        BLOCKED,
        /** The pod no longer exists. */
        GONE
    }

    /** A running watch on one node's pods. */
    interface PodWatch {
        /** The node's pods as the watch last saw them. */
        List<Pod> pods();

        void close();
    }
}
