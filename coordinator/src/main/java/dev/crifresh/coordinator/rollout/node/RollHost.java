package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.gate.NodeGates;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * The run a node's roll belongs to, as the roll sees it: the run's view of the cluster, its gates and budget, and where
 * the roll's progress, Events and end go. The roll's ports (write paths, fence, time) are {@link RollPorts}. No
 * defaults: a run that forgot one would leave the roll blind (no nodes for the safety checks, no gates). Every call
 * happens on the run's context.
 */
public interface RollHost {
    /** The rollout gates (blockers, etcd, pull proof); {@code Gates.none} when the run has none. */
    NodeGates gates();

    /** Every node of the cluster in its latest state, selected or not (what the safety checks and etcd gate see). */
    List<NodeFacts> clusterView();

    /** The node's latest state from the informer; null once deleted. */
    NodeFacts facts(String name);

    /**
     * The run's copy of the node (its informer's, with the answers of its own patches), or null when it has none: a
     * guarded patch is decided on it first, and its guard refuses a stale copy.
     */
    Node cached(String name);

    /** Classifies the node's latest state now. */
    Classification classifyNow(String name);

    /** True once the run stops taking on new work (a failure, a lost Lease, an interruption). */
    boolean stopping();

    /**
     * Every node, read from the API server after this call (for the last-moment check); a run shares one
     * read, and its conversion to facts, between the nodes that ask at about the same time ({@code SharedNodeList}
     * in rollout.view): a wave of B nodes in a cluster of N converts N nodes, not B × N.
     */
    Future<List<NodeFacts>> freshNodeList();

    /** How many nodes may be unavailable at once. */
    int budget();

    /** The nodes of this run in progress now. */
    Set<String> inFlight();

    /** An {@code INFO} progress line. */
    void progress(NodeRunner roll, String text);

    /** A progress line with its level. */
    void progress(NodeRunner roll, ProgressListener.Level level, String text);

    /** Records a Kubernetes Event on the node (best effort). */
    void event(String node, EventReason reason, String message);

    /**
     * Silences the node's alerts in Alertmanager right before its reboot request; never fails (a warning at most),
     * and creates nothing once the run may not act (the Lease not held) or is stopping. The run expires it when
     * the node's step ends.
     */
    Future<Void> silence(String node);

    /** The roll requested its node's reboot (or took over an earlier run's): the node counts as rebooting. */
    void rebootRequested(NodeRunner roll);

    /** The roll ended (see {@link NodeRunner#end()}). */
    void finished(NodeRunner roll);
}
