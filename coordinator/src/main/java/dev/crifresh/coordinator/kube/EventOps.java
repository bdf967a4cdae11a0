package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.vertx.core.Future;

/** Records Kubernetes Events. Futures complete on the coordinator's context. */
public interface EventOps {
    EventOps NONE = event -> Future.succeededFuture();

    Future<Void> create(Event event);

    /**
     * The same operation with {@code gate} checked on the worker thread right before each Event is sent; an
     * implementation without worker threads (a test double) may return itself.
     */
    default EventOps gated(WriteGate gate) {
        return this;
    }
}
