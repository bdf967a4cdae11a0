package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.vertx.core.Future;

/** Records Kubernetes Events. Futures complete on the coordinator's context. */
public interface EventOps {
    EventOps NONE = event -> Future.succeededFuture();

    Future<Void> create(Event event);
}
