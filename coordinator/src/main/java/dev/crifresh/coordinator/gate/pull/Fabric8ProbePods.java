package dev.crifresh.coordinator.gate.pull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Consumer;

/** {@link ProbePods} on fabric8: blocking calls on worker threads, watch events hopped onto the run's context. */
public final class Fabric8ProbePods implements ProbePods {
    private final Context context;
    private final KubernetesClient client;
    private final String namespace;

    public Fabric8ProbePods(Context context, KubernetesClient client, String namespace) {
        this.context = context;
        this.client = client;
        this.namespace = namespace;
    }

    @Override
    public Future<Pod> create(Pod pod) {
        return context.executeBlocking(() -> client.pods().inNamespace(namespace).resource(pod).create(), false);
    }

    @Override
    public Future<Void> delete(String name) {
        return context.executeBlocking(() -> {
            client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
            return null;
        }, false);
    }

    @Override
    public Future<List<Pod>> probes() {
        return context.executeBlocking(() -> client.pods().inNamespace(namespace)
                .withLabels(PullProof.PROBE_LABELS).list().getItems(), false);
    }

    @Override
    public Future<Watch> watch(String name, Consumer<Pod> onChange) {
        return context.executeBlocking(() -> {
            var watch = client.pods().inNamespace(namespace).withName(name).watch(new Watcher<Pod>() {
                @Override
                public void eventReceived(Action action, Pod pod) {
                    context.runOnContext(v -> onChange.accept(action == Action.DELETED ? null : pod));
                }

                @Override
                public void onClose(WatcherException cause) {
                    // the proof's timer bounds the wait; a closed watch only means fewer early answers
                }
            });
            Pod now = client.pods().inNamespace(namespace).withName(name).get();
            context.runOnContext(v -> onChange.accept(now));
            return (Watch) watch::close;
        }, false);
    }
}
