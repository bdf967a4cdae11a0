package dev.crifresh.coordinator.gate;

import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.classify.NodeFacts;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** The gates one node's roll passes ({@link Gates}); every call on the run's context. */
public interface NodeGates {
    /**
     * Before the node is cordoned: its blockers waited out (bounded), then for a control plane a healthy etcd.
     *
     * @param cluster   every node of the cluster in its latest state
     * @param abandoned true once the roll no longer waits for the answer
     * @param say       a progress line about the node
     */
    Future<GateVerdict> beforeTakeDown(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned, Consumer<String> say);

    /** After the node returned and attests fresh: a control plane's etcd healthy again, then the pull proof. */
    Future<GateVerdict> afterReturn(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned, Consumer<String> say);
}
