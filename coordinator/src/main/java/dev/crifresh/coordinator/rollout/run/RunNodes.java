package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
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
 * What the run does when its nodes change (the informer's events), in whatever step it is:
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
    /** What the node events ask of the run. */
    interface RunStatus {
        RunStep.RunState state();

        /** The epoch of the run's state now: an answer to an effect started now carries it. */
        long epoch();

        /** Whether the run is still in the state of {@code epoch} ({@link RunLoop#current}). */
        boolean current(long epoch);

        boolean stopping();

        void feed(RunInput input);

        Classification classifyNow(String name);
    }

    final PendingWait configWait;
    final PendingWait freshWait;
    private final JoinedNodes joined;
    private final NodeView view;
    private final RunResults results;
    private final RollingPhase rolls;
    private final StaleNodeTaints taints;
    private final CoordinatorSettings settings;
    private final String registry;
    private final Consumer<RunEvent> observer;
    private final RunStatus run;
    /** Nodes fresh by now: where evicted pods should land. */
    private final Set<String> fresh = new TreeSet<>();
    /** Joined nodes that settled while the run was deciding: decided once rolling starts. */
    private final List<String> pending = new ArrayList<>();
    /** Joined stale nodes being tainted before their roll is queued. */
    private int joinsPending;
    private boolean inventoryReading;

    RunNodes(Ticker ticker, NodeView view, RunResults results, RollingPhase rolls, StaleNodeTaints taints, CoordinatorSettings settings,
             String registry, Consumer<RunEvent> observer, RunStatus run) {
        this.view = view;
        this.results = results;
        this.rolls = rolls;
        this.taints = taints;
        this.settings = settings;
        this.registry = registry;
        this.observer = observer;
        this.run = run;
        this.configWait = new PendingWait(ticker, c -> c.verdict() != NodeVerdict.CONFIG_PENDING,
                c -> observer.accept(new RunEvent.ConfigSettled(c)), () -> run.feed(new RunInput.ConfigReady()),
                this::configTimedOut);
        this.freshWait = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH, this::turnedFresh,
                () -> run.feed(new RunInput.FreshWaitEnded()),
                this::freshTimedOut);
        this.joined = new JoinedNodes(ticker, settings.attestTimeout(), this::joinedSettled);
    }

    Set<String> fresh() {
        return fresh;
    }

    JoinedNodes joined() {
        return joined;
    }

    private void configTimedOut() {
        run.feed(new RunInput.ConfigTimedOut(details(configWait, Classification::detail)));
    }

    private void freshTimedOut() {
        run.feed(new RunInput.FreshTimedOut(details(freshWait, c -> c.verdict().wire() + " (" + c.reason() + ") " + c.detail())));
    }

    private Map<String, String> details(PendingWait wait, Function<Classification, String> detail) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : wait.names()) {
            out.put(name, detail.apply(view.has(name) ? run.classifyNow(name) : results.initial(name)));
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
            run.feed(new RunInput.ConfigReady());
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
            run.feed(new RunInput.Idle());
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
        RunStep.RunState state = run.state();
        if (state instanceof RunStep.Done) {
            return;
        }
        String name = node.getMetadata().getName();
        boolean availability = view.remember(node);
        if (!results.known(name)) {
            joinedUpdate(name);
        }
        if (state instanceof RunStep.ConfigWait) {
            recheck(configWait, name);
        } else if (state instanceof RunStep.Waiting) {
            recheck(freshWait, name);
        } else if (state instanceof RunStep.Rolling) {
            NodeRunner roll = rolls.inFlight(name);
            if (roll != null) {
                roll.onUpdate();
            }
            if (availability) {
                rolls.pump();
            }
        }
    }

    @Override
    public void deleted(String name) {
        if (run.state() instanceof RunStep.Done) {
            return;
        }
        view.forget(name);
        if (configWait.remove(name)) {
            results.ended(name, Outcome.NOT_ATTEMPTED, "the node was deleted during the run");
            configWait.endIfEmpty();
        }
        if (freshWait.remove(name)) {
            results.ended(name, Outcome.FAILED, "the node was deleted while waiting for it to turn fresh");
            run.feed(new RunInput.Halt(StopReason.NODE_FAILED, name + " was deleted during the run"));
            freshWait.endIfEmpty();
        }
        NodeRunner roll = rolls.inFlight(name);
        if (roll != null) {
            roll.onDeleted();
        }
        if (joined.remove(name)) {
            observer.accept(new RunEvent.JoinedDeleted(name));
            if (run.state() instanceof RunStep.Waiting && freshWait.isEmpty()) {
                run.feed(new RunInput.FreshWaitEnded());
            }
        }
        rolls.pump();
    }

    private void recheck(PendingWait wait, String name) {
        if (wait.contains(name) && view.has(name)) {
            wait.check(run.classifyNow(name));
        }
    }

    /** An update of a node that was not classified at the start: a newcomer is waited for, a waited-for one re-checked. */
    private void joinedUpdate(String name) {
        RunStep.RunState s = run.state();
        boolean underWay = s instanceof RunStep.ConfigWait || s instanceof RunStep.Deciding || s instanceof RunStep.Rolling
                || s instanceof RunStep.Waiting;
        if (underWay && !joined.known(name)) {
            joined.add(name);
            observer.accept(new RunEvent.Joined(name, settings.attestTimeout()));
        }
        if (joined.waiting(name)) {
            joined.check(run.classifyNow(name));
        }
    }

    /** A joined node attested fresh or stale, or its wait ended: decide it now, or once rolling starts. */
    private void joinedSettled(String name) {
        RunStep.RunState s = run.state();
        if (s instanceof RunStep.Done || !view.has(name)) {
            return;
        }
        if (s instanceof RunStep.ConfigWait) {
            // Not decided yet: it joins the nodes the plan looks at, config-pending ones the config wait.
            Classification c = run.classifyNow(name);
            results.classified(c);
            if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
                configWait.add(name);
            }
        } else if (s instanceof RunStep.Rolling || s instanceof RunStep.Waiting) {
            decideJoined(name);
        } else {
            pending.add(name);
        }
    }

    /** The joined nodes that settled while the run was deciding. */
    void decidePending() {
        List<String> names = List.copyOf(pending);
        pending.clear();
        names.forEach(this::decideJoined);
    }

    /** Decides a joined node like any other: fresh is skipped, stale and unknown are rolled (or waited for). */
    private void decideJoined(String name) {
        NodeFacts f = view.facts(name);
        if (f == null) {
            return;
        }
        Classification c = run.classifyNow(name);
        results.classified(c);
        String joinedRun = "joined during the run; ";
        boolean rolling = run.state() instanceof RunStep.Rolling;
        if (c.verdict() == NodeVerdict.FRESH) {
            results.record(new RunEffect.NodeRecord(name, Decision.SKIP, Outcome.SKIPPED, joinedRun + c.detail()));
            observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.SKIPPED));
        } else if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
            String within = NodeRunner.seconds(settings.attestTimeout());
            results.record(new RunEffect.NodeRecord(name, Decision.WAIT, Outcome.FAILED, joinedRun + "its config did not hold the desired credential within "
                    + within + ": " + c.detail()));
            run.feed(new RunInput.Halt(StopReason.TIMED_OUT, name + " joined during the run and its config did not hold the desired credential for "
                    + registry + " within " + within));
        } else if (!decideStaleJoined(name, f, c, rolling)) {
            return;
        }
        if (run.state() instanceof RunStep.Rolling) {
            rolls.pump();
        } else if (run.state() instanceof RunStep.Waiting && freshWait.isEmpty()) {
            run.feed(new RunInput.FreshWaitEnded());
        }
    }

    /** A stale or unknown joined node; false when what follows is already under way. */
    private boolean decideStaleJoined(String name, NodeFacts f, Classification c, boolean rolling) {
        NodeAction action = NodeAction.forNode(settings.action(), f);
        if (action.action() == Action.NONE && settings.action() == Action.AUTO && rolling) {
            // auto: the wait is over once the reboots began; a node joining then is rebooted (fail toward rebooting).
            action = new NodeAction(Action.REBOOT, action.why() + ", but it joined after the wait ended");
        }
        boolean rebootIt = action.action() == Action.REBOOT;
        results.decided(name, rebootIt ? Decision.REBOOT : Decision.WAIT);
        if (settings.action() == Action.AUTO) {
            observer.accept(new RunEvent.NodeDecided(name, action));
        }
        if (run.stopping()) {
            results.ended(name, Outcome.NOT_ATTEMPTED, "joined during the run; not attempted: the rollout stopped; " + c.detail());
        } else if (rebootIt && run.state() instanceof RunStep.Waiting) {
            observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.AFTER_THE_WAIT));
            run.feed(new RunInput.JoinedAfterWait(f));
        } else if (rebootIt) {
            observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.ROLLED));
            joinsPending++;
            long epoch = run.epoch();
            taints.taint(List.of(name)).onComplete(ar -> {
                joinsPending--;
                if (run.current(epoch) && view.has(name)) {
                    rolls.addJoined(view.facts(name));
                }
                rolls.pump();
            });
            return false;
        } else {
            results.rebootOrdered(name);
            boolean restart = freshWait.isEmpty();
            freshWait.add(name);
            if (restart) {
                freshWait.start(settings.attestTimeout());
            }
            freshWait.check(c);
            return false;
        }
        return true;
    }

    /**
     * The run would end: first a final read of the selected nodes, unless joined nodes are still under way (then
     * null: their end asks again).
     */
    Future<List<Node>> inventory(NodeOps nodes) {
        if (inventoryReading || joinsPending > 0 || !joined.noneWaiting() || !pending.isEmpty()) {
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
        return !found && joined.noneWaiting() && joinsPending == 0 ? new RunInput.InventoryDone(list.size()) : null;
    }

    /** The run ends: the joined nodes still waited for are not attempted. */
    void finish(String error) {
        configWait.cancel();
        freshWait.cancel();
        for (String name : joined.waitingFor()) {
            if (view.has(name)) {
                results.classified(run.classifyNow(name));
                results.ended(name, Outcome.NOT_ATTEMPTED, "joined during the run; not attempted: the rollout ended while waiting for"
                        + " its attestation (" + error + ")");
            }
        }
        joined.cancel();
    }
}
