package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.gate.NodeGates;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.node.RollHost;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * The run as a node's roll sees it ({@link RollHost}): the run's parts, and the rolling phase the roll belongs to
 * (its budget, the rolls in flight, where a roll's end goes). Built by {@link RollingPhase} for its rolls.
 */
record RunHost(RunParts run, RollingPhase rolls) implements RollHost {
    @Override
    public NodeGates gates() {
        return run.gates();
    }

    @Override
    public List<NodeFacts> clusterView() {
        return run.view().safetyView();
    }

    @Override
    public NodeFacts facts(String name) {
        return run.view().facts(name);
    }

    @Override
    public Node cached(String name) {
        return run.view().raw(name);
    }

    @Override
    public Classification classifyNow(String name) {
        return run.informers().classifyNow(name);
    }

    @Override
    public boolean stopping() {
        return run.loop().stopping();
    }

    @Override
    public Future<List<NodeFacts>> freshNodeList() {
        return run.freshNodes().fresh();
    }

    @Override
    public int budget() {
        return rolls.budget();
    }

    @Override
    public Set<String> inFlight() {
        return rolls.inFlight();
    }

    @Override
    public void progress(NodeRunner roll, String text) {
        run.observer().accept(new RunEvent.NodeProgress(roll.prefix(), null, text));
    }

    @Override
    public void progress(NodeRunner roll, ProgressListener.Level level, String text) {
        run.observer().accept(new RunEvent.NodeProgress(roll.prefix(), level, text));
    }

    @Override
    public void event(String node, EventReason reason, String message) {
        run.observer().accept(new RunEvent.NodeEvent(node, reason, message));
    }

    /** Alerts are noise, not safety: not fenced like a cluster write, but never created once the run may not act. */
    @Override
    public Future<Void> silence(String node) {
        return !run.mayWrite().getAsBoolean() || run.loop().stopping() ? Future.succeededFuture() : run.silences().create(node);
    }

    @Override
    public void rebootRequested(NodeRunner roll) {
        run.results().rebootOrdered(roll.name());
        run.observer().accept(new RunEvent.RebootOrdered(roll.name(), roll.resumed()));
    }

    @Override
    public void finished(NodeRunner roll) {
        rolls.finished(roll);
    }
}
