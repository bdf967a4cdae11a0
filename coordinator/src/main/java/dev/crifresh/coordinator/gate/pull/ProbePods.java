package dev.crifresh.coordinator.gate.pull;

import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Consumer;

/** The probe pods' Kubernetes operations, in the probe namespace. Futures and events complete on the run's context. */
public interface ProbePods {
    Future<Pod> create(Pod pod);

    /** Deletes the pod (gone already is fine). */
    Future<Void> delete(String name);

    /** Every probe pod in the namespace (by label), whatever run made it. */
    Future<List<Pod>> probes();

    /** Tells {@code onChange} of every change of the pod (and of its current state once the watch runs). */
    Future<Watch> watch(String name, Consumer<Pod> onChange);

    interface Watch {
        void close();
    }
}
