package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.node.RollHost;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.RunObserver;
import dev.crifresh.coordinator.rollout.observe.RunSilences;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.rollout.view.SharedNodeList;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The run as each {@link NodeRunner} sees it ({@link RollHost}): the run's node view and write paths (fenced), its
 * time, its budget, and where a roll's progress, Events and end go — progress and Events become
 * {@link RunEvent}s for the run's {@link RunObserver}. Called on the run's context.
 */
final class RunHost implements RollHost {
    /** What the host asks of the run it belongs to. */
    interface RollSupport {
        Gates gates();

        boolean stopping();

        int budget();

        Set<String> inFlight();

        /** Classifies the node's latest state now (through the run's cache). */
        Classification classifyNow(String name);

        /** Creates the node's silence unless the run may not act ({@link RunSilences}). */
        Future<Void> silence(String node);

        void rebootRequested(String node);

        void finished(NodeRunner roll);
    }

    private final Vertx vertx;
    private final CoordinatorSettings settings;
    private final NodeOps nodes;
    private final PodOps pods;
    private final RebootDriver driver;
    private final NodeView view;
    private final Fence fence;
    private final Ticker ticker;
    private final Clock clock;
    private final ApiRetry retry;
    private final SharedNodeList<NodeFacts> freshNodes;
    private final Consumer<RunEvent> observer;
    private final RollSupport run;

    RunHost(Vertx vertx, CoordinatorSettings settings, NodeOps nodes, PodOps pods, RebootDriver driver, NodeView view,
            Fence fence, Ticker ticker, Clock clock, ApiRetry retry, Consumer<RunEvent> observer, RollSupport run) {
        this.vertx = vertx;
        this.settings = settings;
        this.nodes = nodes;
        this.pods = pods;
        this.driver = driver;
        this.view = view;
        this.fence = fence;
        this.ticker = ticker;
        this.clock = clock;
        this.retry = retry;
        this.freshNodes = new SharedNodeList<>(() -> retry.call(nodes::listAll).map(NodeFacts::all));
        this.observer = observer;
        this.run = run;
    }

    @Override
    public Vertx vertx() {
        return vertx;
    }

    @Override
    public CoordinatorSettings settings() {
        return settings;
    }

    @Override
    public NodeOps nodes() {
        return nodes;
    }

    @Override
    public PodOps pods() {
        return pods;
    }

    @Override
    public RebootDriver driver() {
        return driver;
    }

    @Override
    public Gates gates() {
        return run.gates();
    }

    @Override
    public List<NodeFacts> clusterView() {
        return view.safetyView();
    }

    @Override
    public NodeFacts facts(String name) {
        return view.facts(name);
    }

    /** The informer's copy: a guarded patch is decided on it first (a stale copy is refused by its guard and read again). */
    @Override
    public Node cached(String name) {
        return view.raw(name);
    }

    @Override
    public Classification classifyNow(String name) {
        return run.classifyNow(name);
    }

    @Override
    public boolean stopping() {
        return run.stopping();
    }

    @Override
    public Fence fence() {
        return fence;
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** On a worker thread: the driver blocks. */
    @Override
    public Future<Void> reboot(Node node) {
        return vertx.executeBlocking(() -> {
            driver.reboot(node);
            return null;
        }, false);
    }

    @Override
    public ApiRetry retry() {
        return retry;
    }

    @Override
    public Future<List<NodeFacts>> freshNodeList() {
        return freshNodes.fresh();
    }

    @Override
    public int budget() {
        return run.budget();
    }

    @Override
    public Set<String> inFlight() {
        return run.inFlight();
    }

    @Override
    public void progress(NodeRunner roll, String text) {
        observer.accept(new RunEvent.NodeProgress(roll.prefix(), null, text));
    }

    @Override
    public void progress(NodeRunner roll, ProgressListener.Level level, String text) {
        observer.accept(new RunEvent.NodeProgress(roll.prefix(), level, text));
    }

    @Override
    public void event(String node, EventReason reason, String message) {
        observer.accept(new RunEvent.NodeEvent(node, reason, message));
    }

    @Override
    public Future<Void> silence(String node) {
        return run.silence(node);
    }

    @Override
    public void rebootRequested(NodeRunner roll) {
        run.rebootRequested(roll.name());
        observer.accept(new RunEvent.RebootOrdered(roll.name(), roll.resumed()));
    }

    @Override
    public void finished(NodeRunner roll) {
        run.finished(roll);
    }
}
