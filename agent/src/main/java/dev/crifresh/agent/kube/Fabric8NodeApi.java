package dev.crifresh.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/** {@link NodeApi} on fabric8: GET, JSON Patch on the status subresource, an informer on one Node. */
public final class Fabric8NodeApi implements NodeApi {
    private final KubernetesClient client;

    public Fabric8NodeApi(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Node get(String name) throws ApiException {
        try {
            return client.nodes().withName(name).get();
        } catch (KubernetesClientException e) {
            throw wrap("get", e);
        }
    }

    @Override
    public void patchStatus(String name, String jsonPatch) throws ApiException {
        try {
            // resource(<node named name>), not withName(name): fabric8 8.0's patch of a named resource GETs it first,
            // only to learn its name (HasMetadataOperation.patch -> getItemOrRequireFromServer): a hidden round trip
            Node named = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
            client.nodes().resource(named).subresource("status").patch(PatchContext.of(PatchType.JSON), jsonPatch);
        } catch (KubernetesClientException e) {
            throw wrap("patch", e);
        }
    }

    @Override
    public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
        SharedIndexInformer<Node> informer = client.nodes().withName(name).runnableInformer(0);
        informer.exceptionHandler((started, t) -> {
            onError.accept(t);
            return true; // keep listing and watching: the API may come back
        });
        informer.addEventHandler(new ResourceEventHandler<Node>() {
            @Override
            public void onAdd(Node node) {
                onNode.accept(node);
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                onNode.accept(newNode);
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                // The Node is gone; when it is created again, onAdd publishes.
            }
        });
        informer.start();
        return informer::stop;
    }

    private static ApiException wrap(String operation, KubernetesClientException e) {
        String detail = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage() : rootMessage(e);
        return new ApiException(e.getCode(), operation + " failed (" + e.getCode() + "): " + detail, e);
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
