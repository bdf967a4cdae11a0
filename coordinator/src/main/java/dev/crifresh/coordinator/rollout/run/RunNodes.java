package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the run does when its nodes change (the informer's events), in whatever step it is. Where each event goes is
 * decided by pure parts, carried out here: the step's view of it ({@link NodeEventStage}), a node deleted while waited
 * for ({@link DeletedWhileWaited}), a joined node's decision ({@link JoinedDecision}, carried out by
 * {@link JoinedDecisions}), the final inventory ({@link InventoryGate}).
 * <ol>
 *   <li>the waits: a config-pending node re-checked ({@link #configWait}), a node waited for to turn fresh
 *       ({@link #freshWait}); a node deleted while waited for is not attempted, or fails the run;</li>
 *   <li>a rolling node's roll hears of it ({@link NodeRunner#onUpdate()}, {@link NodeRunner#onDeleted()}), and a change of
 *       availability lets the rolls start what fits;</li>
 *   <li>a node that joins while the run is under way is waited for until it attests ({@link JoinedNodes}), then
 *       decided like the others — at once while rolling or waiting, else once the roll begins;</li>
 *   <li>the final inventory: a node nobody decided is handled as joined; the run ends when none is left.</li>
 * </ol>
 * Called on the run's context.
 */
final class RunNodes implements NodeOps.NodeEvents {
    final PendingWait configWait;
    final PendingWait freshWait;
    private final JoinedNodes joined;
    private final NodeView view;
    private final RunResults results;
    private final RollingPhase rolls;
    private final RunStep.Config settings;
    private final String registry;
    private final Consumer<RunEvent> observer;
    private final RunParts run;
    /** Nodes fresh by now: where evicted pods should land. */
    private final Set<String> fresh = new TreeSet<>();
    /** Joined nodes that settled while the run was deciding: decided once rolling starts. */
    private final List<String> pending = new ArrayList<>();
    private final JoinedDecisions decisions;
    private boolean inventoryReading;

    RunNodes(Ticker ticker, RunParts run, RollingPhase rolls, StaleNodeTaints taints, RunStep.Config settings) {
        Consumer<RunEvent> observer = run.observer();
        this.view = run.view();
        this.results = run.results();
        this.rolls = rolls;
        this.settings = settings;
        this.registry = settings.registry();
        this.observer = observer;
        this.run = run;
        this.configWait = new PendingWait(ticker, c -> c.verdict() != NodeVerdict.CONFIG_PENDING,
                c -> observer.accept(new RunEvent.ConfigSettled(c)), () -> run.loop().feed(new RunInput.ConfigReady()),
                this::configTimedOut);
        this.freshWait = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH, this::turnedFresh,
                () -> run.loop().feed(new RunInput.FreshWaitEnded()),
                this::freshTimedOut);
        this.joined = new JoinedNodes(ticker, settings.attestTimeout(), this::joinedSettled);
        this.decisions = new JoinedDecisions(run, rolls, taints, settings, freshWait);
    }

    Set<String> fresh() {
        return fresh;
    }

    JoinedNodes joined() {
        return joined;
    }

    private void configTimedOut() {
        run.loop().feed(new RunInput.ConfigTimedOut(details(configWait, Classification::detail)));
    }

    private void freshTimedOut() {
        run.loop().feed(new RunInput.FreshTimedOut(details(freshWait, c -> c.verdict().wire() + " (" + c.reason() + ") " + c.detail())));
    }

    private Map<String, String> details(PendingWait wait, Function<Classification, String> detail) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : wait.names()) {
            out.put(name, detail.apply(view.has(name) ? run.informers().classifyNow(name) : results.initial(name)));
        }
        return out;
    }

    private void turnedFresh(Classification c) {
        // With action auto the reboots follow: a node that turned fresh is capacity for their evicted pods.
        fresh.add(c.name());
        results.ended(c.name(), Outcome.BECAME_FRESH, "turned fresh without a reboot; " + c.detail());
        observer.accept(new RunEvent.TurnedFresh(c));
    }

    /** Waits for the config-pending nodes (none: the run goes on at once), checking them again on a fresh classification. */
    void startConfigWait(Function<Collection<String>, Future<Map<String, Classification>>> classifyLatest) {
        results.initial().stream().filter(c -> c.verdict() == NodeVerdict.CONFIG_PENDING).forEach(c -> configWait.add(c.name()));
        if (configWait.isEmpty()) {
            run.loop().feed(new RunInput.ConfigReady());
            return;
        }
        observer.accept(new RunEvent.ConfigWaitStarted(settings.configTimeout(), registry, List.copyOf(configWait.names())));
        configWait.start(settings.configTimeout());
        // Nodes may have changed while they were classified: check the pending ones again, off the loop.
        classifyLatest.apply(configWait.snapshot()).onSuccess(latest -> configWait.checkAll(latest.values()));
    }

    /** Action none or auto: waits for the nodes to attest fresh by themselves. */
    void waitForFresh(List<NodeFacts> nodes) {
        decidePending();
        if (nodes.isEmpty()) {
            run.loop().feed(new RunInput.Idle());
            return;
        }
        nodes.forEach(f -> {
            freshWait.add(f.name());
            results.rebootOrdered(f.name());
        });
        observer.accept(new RunEvent.FreshWaitStarted(settings.action().wire(), settings.attestTimeout(), List.copyOf(freshWait.names())));
        freshWait.start(settings.attestTimeout());
    }

    @Override
    public void upsert(Node node) {
        NodeEventStage stage = stage();
        if (!stage.listens()) {
            return;
        }
        String name = node.getMetadata().getName();
        boolean availability = view.remember(node);
        if (!results.known(name)) {
            joinedUpdate(name);
        }
        switch (stage.update()) {
            case CONFIG_WAIT -> recheck(configWait, name);
            case FRESH_WAIT -> recheck(freshWait, name);
            case ROLLS -> {
                NodeRunner roll = rolls.inFlight(name);
                if (roll != null) {
                    roll.onUpdate();
                }
                if (availability) {
                    rolls.pump();
                }
            }
            case NOBODY -> {
            }
        }
    }

    @Override
    public void deleted(String name) {
        if (!stage().listens()) {
            return;
        }
        view.forget(name);
        if (configWait.remove(name)) {
            endWaited(name, DeletedWhileWaited.fromConfigWait());
            configWait.endIfEmpty();
        }
        if (freshWait.remove(name)) {
            endWaited(name, DeletedWhileWaited.fromFreshWait(name));
            freshWait.endIfEmpty();
        }
        NodeRunner roll = rolls.inFlight(name);
        if (roll != null) {
            roll.onDeleted();
        }
        if (joined.remove(name)) {
            observer.accept(new RunEvent.JoinedDeleted(name));
            if (stage().endsFreshWait(freshWait.isEmpty())) {
                run.loop().feed(new RunInput.FreshWaitEnded());
            }
        }
        rolls.pump();
    }

    private void endWaited(String name, DeletedWhileWaited deleted) {
        results.ended(name, deleted.outcome(), deleted.detail());
        if (deleted.halt() != null) {
            run.loop().feed(deleted.halt());
        }
    }

    private NodeEventStage stage() {
        return NodeEventStage.of(run.loop().machine().state());
    }

    private void recheck(PendingWait wait, String name) {
        if (wait.contains(name) && view.has(name)) {
            wait.check(run.informers().classifyNow(name));
        }
    }

    /** An update of a node that was not classified at the start: a newcomer is waited for, a waited-for one re-checked. */
    private void joinedUpdate(String name) {
        if (stage().takesJoined() && !joined.known(name)) {
            joined.add(name);
            observer.accept(new RunEvent.Joined(name, settings.attestTimeout()));
        }
        if (joined.waiting(name)) {
            joined.check(run.informers().classifyNow(name));
        }
    }

    /** A joined node attested fresh or stale, or its wait ended: planned with the others, decided now or once rolling starts. */
    private void joinedSettled(String name) {
        switch (stage().settled(view.has(name))) {
            case PLANNED -> {
                Classification c = run.informers().classifyNow(name);
                results.classified(c);
                if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
                    configWait.add(name);
                }
            }
            case DECIDED_NOW -> decisions.decide(name);
            case DECIDED_WHEN_ROLLING -> pending.add(name);
            case DROPPED -> {
            }
        }
    }

    /** The joined nodes that settled while the run was deciding. */
    void decidePending() {
        List<String> names = List.copyOf(pending);
        pending.clear();
        names.forEach(decisions::decide);
    }

    /**
     * The run would end: first a final read of the selected nodes, unless joined nodes are still under way (then
     * null: their end asks again).
     */
    Future<List<Node>> inventory(NodeOps nodes) {
        if (!gate().mayRead()) {
            return null;
        }
        inventoryReading = true;
        return nodes.list().onComplete(ar -> inventoryReading = false);
    }

    /**
     * What the final read found: a node nobody classified yet (the informer had not delivered it) is handled as
     * joined; the run ends only when every selected node is fresh or in the report (else null: the joined nodes'
     * end asks again).
     */
    RunInput inventoryRead(List<Node> list) {
        boolean found = false;
        for (Node node : list) {
            String name = node.getMetadata().getName();
            if (!results.known(name) && !joined.known(name)) {
                found = true;
                view.remember(node);
                joinedUpdate(name);
            }
        }
        return gate().endsRun(found) ? new RunInput.InventoryDone(list.size()) : null;
    }

    private InventoryGate gate() {
        return new InventoryGate(inventoryReading, !joined.noneWaiting(), decisions.tainting(), pending.size());
    }

    /** The run ends: the joined nodes still waited for are not attempted. */
    void finish(String error) {
        configWait.cancel();
        freshWait.cancel();
        for (String name : joined.waitingFor()) {
            if (view.has(name)) {
                results.classified(run.informers().classifyNow(name));
                results.ended(name, Outcome.NOT_ATTEMPTED, JoinedDecision.endedWhileWaiting(error));
            }
        }
        joined.cancel();
    }
}
