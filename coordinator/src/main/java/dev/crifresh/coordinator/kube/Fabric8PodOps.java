package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;

/**
 * {@link PodOps} over fabric8. Evictions go through {@code pods().inNamespace(ns).withName(n).evict()}
 * on a derived client without fabric8's own retries: fabric8 retries 429 with exponential backoff
 * (honouring Retry-After), which would hide a PDB block inside one call and overrun the drain timeout;
 * the coordinator retries PDB blocks itself, bounded by {@code --drain-timeout}. A node's pods are watched
 * with an informer (field selector {@code spec.nodeName}), so a drain learns at once that a pod is gone.
 */
public final class Fabric8PodOps implements PodOps {
    private final Context context;
    private final KubernetesClient client;
    private final KubernetesClient evictions;
    private final boolean fieldSelector;
    private final WriteGate gate;

    /** @param fieldSelector list and watch with {@code spec.nodeName=<node>} on the server (false: every pod, filtered locally) */
    public Fabric8PodOps(Context context, KubernetesClient client, boolean fieldSelector) {
        this(context, client, client.newClient(new RequestConfigBuilder().withRequestRetryBackoffLimit(0).build())
                .adapt(KubernetesClient.class), fieldSelector, WriteGate.OPEN);
    }

    private Fabric8PodOps(Context context, KubernetesClient client, KubernetesClient evictions, boolean fieldSelector, WriteGate gate) {
        this.context = context;
        this.client = client;
        this.evictions = evictions;
        this.fieldSelector = fieldSelector;
        this.gate = gate;
    }

    @Override
    public PodOps gated(WriteGate gate) {
        return new Fabric8PodOps(context, client, evictions, fieldSelector, gate);
    }

    @Override
    public Future<List<Pod>> podsOn(String node) {
        return context.executeBlocking(() -> {
            var pods = client.pods().inAnyNamespace();
            List<Pod> items = fieldSelector ? pods.withField("spec.nodeName", node).list().getItems() : pods.list().getItems();
            return items.stream().filter(p -> on(node, p)).toList();
        }, false);
    }

    @Override
    public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
        var pods = client.pods().inAnyNamespace();
        SharedIndexInformer<Pod> informer = (fieldSelector ? pods.withField("spec.nodeName", node) : pods).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                notify(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                notify(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                notify(pod);
            }

            private void notify(Pod pod) {
                if (on(node, pod)) {
                    context.runOnContext(v -> changed.run());
                }
            }
        });
        PodWatch watch = new PodWatch() {
            @Override
            public List<Pod> pods() {
                return informer.getStore().list().stream().filter(p -> on(node, p)).toList();
            }

            @Override
            public void close() {
                informer.close();
            }
        };
        return Future.fromCompletionStage(informer.start(), context).map(v -> watch)
                .onFailure(e -> informer.close());
    }

    /** Whether the pod runs on the node; also checked with a field selector, which a server may not apply. */
    private static boolean on(String node, Pod pod) {
        return pod.getSpec() != null && node.equals(pod.getSpec().getNodeName());
    }

    @Override
    public Future<Eviction> evict(String namespace, String name) {
        return context.executeBlocking(() -> {
            var pod = evictions.pods().inNamespace(namespace).withName(name);
            gate.check();
            if (pod.evict()) {
                return Eviction.EVICTED;
            }
            // fabric8 answers false for both 429 and 404: tell them apart by looking.
            return pod.get() == null ? Eviction.GONE : Eviction.BLOCKED;
        }, false);
    }
}
