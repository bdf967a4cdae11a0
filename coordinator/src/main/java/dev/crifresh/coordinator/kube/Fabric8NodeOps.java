package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;

/** {@link NodeOps} over fabric8; blocking calls run on Vert.x worker threads. */
public final class Fabric8NodeOps implements NodeOps {
    private final Context context;
    private final KubernetesClient client;
    private final String selector;
    private final WriteGate gate;

    /** @param selector a label selector, or null for every node */
    public Fabric8NodeOps(Context context, KubernetesClient client, String selector) {
        this(context, client, selector, WriteGate.OPEN);
    }

    private Fabric8NodeOps(Context context, KubernetesClient client, String selector, WriteGate gate) {
        this.context = context;
        this.client = client;
        this.selector = selector;
        this.gate = gate;
    }

    @Override
    public NodeOps gated(WriteGate gate) {
        return new Fabric8NodeOps(context, client, selector, gate);
    }

    private NonNamespaceOperation<Node, NodeList, Resource<Node>> nodes() {
        var nodes = client.nodes();
        return selector == null ? nodes : (NonNamespaceOperation<Node, NodeList, Resource<Node>>) nodes.withLabelSelector(selector);
    }

    @Override
    public Future<List<Node>> list() {
        return context.executeBlocking(() -> nodes().list().getItems(), false);
    }

    @Override
    public Future<List<Node>> listAll() {
        return context.executeBlocking(() -> client.nodes().list().getItems(), false);
    }

    @Override
    public Future<Node> get(String name) {
        return context.executeBlocking(() -> client.nodes().withName(name).get(), false);
    }

    @Override
    public Future<Node> mergePatch(String name, String patch) {
        return context.executeBlocking(() -> {
            gate.check();
            return named(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        }, false);
    }

    @Override
    public Future<Node> jsonPatch(String name, String patch) {
        return context.executeBlocking(() -> {
            gate.check();
            return named(name).patch(PatchContext.of(PatchType.JSON), patch);
        }, false);
    }

    /**
     * The node to patch, by name alone. {@code withName(name).patch(context, String)} first GETs the node only to learn
     * its name and namespace (fabric8 8.0's {@code HasMetadataOperation.patch} → {@code getItemOrRequireFromServer}):
     * one hidden round trip per patch. A patch carries its own guards, and a deleted node answers the PATCH with 404 as
     * it did the GET.
     */
    private Resource<Node> named(String name) {
        return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build());
    }

    @Override
    public Future<NodeWatch> watch(NodeEvents events) {
        return watch(nodes(), events);
    }

    @Override
    public Future<NodeWatch> watchAll(NodeEvents events) {
        return watch(client.nodes(), events);
    }

    private Future<NodeWatch> watch(NonNamespaceOperation<Node, NodeList, Resource<Node>> nodes, NodeEvents events) {
        SharedIndexInformer<Node> informer = nodes.runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                context.runOnContext(v -> events.upsert(node));
            }

            @Override
            public void onUpdate(Node oldNode, Node node) {
                context.runOnContext(v -> events.upsert(node));
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                context.runOnContext(v -> events.deleted(node.getMetadata().getName()));
            }
        });
        NodeWatch watch = new NodeWatch() {
            @Override
            public List<Node> snapshot() {
                return informer.getStore().list();
            }

            @Override
            public void close() {
                informer.close();
            }
        };
        return Future.fromCompletionStage(informer.start(), context).map(v -> watch)
                .onFailure(e -> informer.close());
    }
}
