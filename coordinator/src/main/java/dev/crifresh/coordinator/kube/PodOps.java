package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import java.util.List;

/** Pods on a node and their eviction through the Eviction API. */
public interface PodOps {

    Future<List<Pod>> podsOn(String node);

    /** One eviction attempt, without retries: a PDB-blocked eviction answers {@link Eviction#BLOCKED}. */
    Future<Eviction> evict(String namespace, String name);

    enum Eviction {
        /** The API server accepted the eviction; the pod terminates. */
        EVICTED,
        /** 429: a PodDisruptionBudget does not allow it now. */
        BLOCKED,
        /** The pod no longer exists. */
        GONE
    }
}
