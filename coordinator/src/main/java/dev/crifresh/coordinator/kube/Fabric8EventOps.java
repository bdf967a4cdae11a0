package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;

/** {@link EventOps} over fabric8 (core/v1 Events); the blocking call runs on a Vert.x worker thread. */
public final class Fabric8EventOps implements EventOps {
    private final Context context;
    private final KubernetesClient client;
    private final WriteGate gate;

    public Fabric8EventOps(Context context, KubernetesClient client) {
        this(context, client, WriteGate.OPEN);
    }

    private Fabric8EventOps(Context context, KubernetesClient client, WriteGate gate) {
        this.context = context;
        this.client = client;
        this.gate = gate;
    }

    @Override
    public EventOps gated(WriteGate gate) {
        return new Fabric8EventOps(context, client, gate);
    }

    @Override
    public Future<Void> create(Event event) {
        return context.executeBlocking(() -> {
            gate.check();
            client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
            return null;
        }, true); // ordered: a node's Events are written in the order they happened
    }
}
