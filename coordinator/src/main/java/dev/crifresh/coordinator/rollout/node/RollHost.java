package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.gate.NodeGates;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/**
 * What a {@link NodeRunner} needs from the run it belongs to. No defaults: a host that forgot one would leave the roll
 * unguarded or blind (no nodes for the safety checks, no gates). Every call happens on the run's context.
 */
public interface RollHost extends GuardedPatch.Host {
    Vertx vertx();

    CoordinatorSettings settings();

    /** Node operations; a successful patch updates the run's view of the node at once. */
    @Override
    NodeOps nodes();

    PodOps pods();

    RebootDriver driver();

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

    /** Requests the node's reboot from the driver, on a worker thread (the driver blocks). */
    Future<Void> reboot(Node node);

    /** Classifies the node's latest state now. */
    Classification classifyNow(String name);

    /** True once the run stops taking on new work (a failure, a lost Lease, an interruption). */
    boolean stopping();

    /** Whether the run may write now; every side effect passes it right before it is sent. */
    @Override
    Fence fence();

    /** The wall clock: when phase rebooting is recorded ({@code crifresh.dev/recorded-at}). */
    Clock clock();

    /** Time and timers. */
    Ticker ticker();

    /** Retries a Kubernetes call on transient errors while the Lease is held. */
    @Override
    ApiRetry retry();

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

    void rebootRequested(NodeRunner roll);

    void finished(NodeRunner roll);
}
