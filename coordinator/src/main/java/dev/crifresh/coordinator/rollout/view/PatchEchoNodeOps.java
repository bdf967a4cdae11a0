package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.WriteGate;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Consumer;

/**
 * Node operations that hand every node a successful patch returns to the run at once: it is newer than the
 * informer's copy until the patch's own watch event arrives.
 */
public final class PatchEchoNodeOps implements NodeOps {
    private final NodeOps delegate;
    private final Consumer<Node> patched;

    public PatchEchoNodeOps(NodeOps delegate, Consumer<Node> patched) {
        this.delegate = delegate;
        this.patched = patched;
    }

    @Override
    public Future<List<Node>> list() {
        return delegate.list();
    }

    @Override
    public Future<List<Node>> listAll() {
        return delegate.listAll();
    }

    @Override
    public Future<Node> get(String name) {
        return delegate.get(name);
    }

    @Override
    public Future<Node> mergePatch(String name, String patch) {
        return delegate.mergePatch(name, patch).onSuccess(patched::accept);
    }

    @Override
    public Future<Node> jsonPatch(String name, String patch) {
        return delegate.jsonPatch(name, patch).onSuccess(patched::accept);
    }

    @Override
    public NodeOps gated(WriteGate gate) {
        return new PatchEchoNodeOps(delegate.gated(gate), patched);
    }

    @Override
    public Future<NodeWatch> watch(NodeEvents events) {
        return delegate.watch(events);
    }

    @Override
    public Future<NodeWatch> watchAll(NodeEvents events) {
        return delegate.watchAll(events);
    }
}
