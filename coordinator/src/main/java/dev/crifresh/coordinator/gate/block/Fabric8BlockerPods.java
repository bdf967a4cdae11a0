package dev.crifresh.coordinator.gate.block;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;

/**
 * Lists the pods matching the selector in every namespace and keeps those on the node that still run: not
 * {@code Succeeded} or {@code Failed}, not being deleted. The node is filtered locally (fabric8's mock
 * cannot filter on {@code spec.nodeName}, and a label-selected list is small).
 */
public final class Fabric8BlockerPods implements BlockerPods {
    private final Context context;
    private final KubernetesClient client;
    private final String selector;

    public Fabric8BlockerPods(Context context, KubernetesClient client, String selector) {
        this.context = context;
        this.client = client;
        this.selector = selector;
    }

    @Override
    public Future<List<String>> on(String node) {
        return context.executeBlocking(() -> client.pods().inAnyNamespace().withLabelSelector(selector).list().getItems()
                .stream().filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()))
                .filter(Fabric8BlockerPods::running)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()).sorted().toList(), false);
    }

    static boolean running(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return p.getMetadata().getDeletionTimestamp() == null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }
}
