package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.Consumer;

/**
 * An informer on the one rollout Lease (a watch selected by {@code metadata.name}, re-listed by fabric8 after a
 * broken watch): every change of it reaches {@code holder} on the run's context with the holder it names, null
 * when it names none or was deleted. This is how a run learns at once that an operator deleted its Lease or
 * wrote another holder into it, instead of at its next renewal.
 */
final class LeaseHolderWatch implements LeaseLock.Watch {
    private final SharedIndexInformer<Lease> informer;

    private LeaseHolderWatch(SharedIndexInformer<Lease> informer) {
        this.informer = informer;
    }

    static Future<LeaseLock.Watch> start(Context context, KubernetesClient client, String namespace, String name,
                                         Consumer<String> holder) {
        SharedIndexInformer<Lease> informer = client.leases().inNamespace(namespace).withName(name).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Lease lease) {
                context.runOnContext(v -> holder.accept(holderOf(lease)));
            }

            @Override
            public void onUpdate(Lease before, Lease lease) {
                context.runOnContext(v -> holder.accept(holderOf(lease)));
            }

            @Override
            public void onDelete(Lease lease, boolean finalStateUnknown) {
                context.runOnContext(v -> holder.accept(null));
            }
        });
        LeaseHolderWatch watch = new LeaseHolderWatch(informer);
        return Future.fromCompletionStage(informer.start(), context).<LeaseLock.Watch>map(v -> watch)
                .onFailure(e -> informer.close());
    }

    static String holderOf(Lease lease) {
        String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        return holder == null || holder.isEmpty() ? null : holder;
    }

    @Override
    public void close() {
        informer.close();
    }
}
