package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.vertx.core.Future;

/** Records Kubernetes Events. Futures complete on the coordinator's context. */
public interface EventOps {
    /** Records nothing: nothing is sent, so there is nothing to gate. */
    EventOps NONE = new EventOps() {
        @Override
        public Future<Void> create(Event event) {
            return Future.succeededFuture();
        }

        @Override
        public EventOps gated(WriteGate gate) {
            return this;
        }
    };

    Future<Void> create(Event event);

    /**
     * The same operation with {@code gate} checked on the worker thread right before each Event is sent. No
     * default: every implementation says how it keeps the run's fence.
     */
    EventOps gated(WriteGate gate);
}
