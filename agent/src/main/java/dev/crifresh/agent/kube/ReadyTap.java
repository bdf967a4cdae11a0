package dev.crifresh.agent.kube;

import dev.crifresh.common.evidence.KubeletReady;
import io.fabric8.kubernetes.api.model.Node;
import java.util.function.Consumer;

/**
 * A {@link NodeApi} that also hands the kubelet's Ready condition of every Node its watch delivers to
 * {@code ready}: the agent's one watch of its own Node serves both the publisher and the kubelet witness
 * ({@code KubeletWitness}). Everything else goes to the delegate unchanged.
 */
public final class ReadyTap implements NodeApi {
    private final NodeApi delegate;
    private final Consumer<KubeletReady> ready;

    public ReadyTap(NodeApi delegate, Consumer<KubeletReady> ready) {
        this.delegate = delegate;
        this.ready = ready;
    }

    @Override
    public Node get(String name) throws ApiException {
        return delegate.get(name);
    }

    @Override
    public void patchStatus(String name, String jsonPatch) throws ApiException {
        delegate.patchStatus(name, jsonPatch);
    }

    @Override
    public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
        return delegate.watch(name, node -> {
            ready.accept(ReadyCondition.of(node));
            onNode.accept(node);
        }, onError);
    }
}
