package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEnd;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.node.RollHost;
import dev.crifresh.coordinator.rollout.node.RollPorts;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.RunSilences;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.rollout.plan.Decisions;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.RollStarts.Slot;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.NodeView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The rolling phase of a run: its {@link NodeRunner}s, started within the budget as they fit. A thin runner: where the
 * phase is ({@link RollingState}: queue, flight, budget, blocked timer, taints under way) is a value, each decision a
 * pure {@link RollingStep}, and this carries out the effects ({@link RollingEffect}), in order.
 * <ol>
 *   <li>{@link #start}: every node to reboot is queued in order; nodes an earlier run may already have rebooted start
 *       at once, outside the budget (only waited for); the seed, if any, goes first and alone.</li>
 *   <li>{@link #pump}: whatever fits starts; when nothing is in flight and nothing more may start, the run is idle
 *       ({@link RunInput.Idle}); when nothing can start for {@code --stall-timeout}, it is {@link RunInput.Blocked}.</li>
 *   <li>{@link #finished}: a roll's end may stop the run ({@link NodeEnd#stops()}); its silence is expired; a
 *       rebooted node's taint comes off before the next node starts, so that evicted pods may land there.</li>
 * </ol>
 * Called on the run's context.
 */
final class RollingPhase {
    /** Every roll of the run by node name (a node rolled again: its latest roll). */
    private final Map<String, NodeRunner> rolls = new LinkedHashMap<>();
    private final RollPorts ports;
    private final RunParts run;
    private final RollHost host;
    private final NodeView view;
    private final StaleNodeTaints taints;
    private final RunSilences silences;
    private final Consumer<RunEvent> observer;
    private final Effects effects = new Effects();
    private RollingState state = RollingState.idle();
    /** The blocked timer's id while it is set ({@link RollingState#blockedArmed}), else -1. */
    private long blockedTimer = -1;

    RollingPhase(RollPorts ports, RunParts run, StaleNodeTaints taints) {
        this.ports = ports;
        this.run = run;
        this.host = new RunHost(run, this);
        this.view = run.view();
        this.taints = taints;
        this.silences = run.silences();
        this.observer = run.observer();
    }

    int budget() {
        return state.budget();
    }

    Set<String> inFlight() {
        return Set.copyOf(state.inFlight().keySet());
    }

    NodeRunner roll(String name) {
        return rolls.get(name);
    }

    NodeRunner inFlight(String name) {
        return state.inFlight().containsKey(name) ? rolls.get(name) : null;
    }

    /** The state, for tests. */
    RollingState state() {
        return state;
    }

    /** Queues every node in order; resumed ones start at once, the seed is marked. Follow with {@link #pump}. */
    void start(List<NodeFacts> ordered, int budget, String seed, int selected) {
        state = state.begun(budget, ordered.size());
        observer.accept(new RunEvent.RollStarted(ordered.stream().map(NodeFacts::name).toList(), budget, selected));
        int index = 1;
        for (NodeFacts f : ordered) {
            Ownership owner = Decisions.leftover(f);
            queue(new NodeRunner(ports, host, f, index++, ordered.size(), RolloutPlan.resumed(f) ? owner : null));
        }
        // Their reboot may be under way: only waited for, never rebooted again here, and outside the budget.
        for (Slot slot : state.queue()) {
            NodeRunner roll = rolls.get(slot.name());
            if (roll.resumed()) {
                silences.owe(roll.name()); // the earlier run may have left its silence: expired when this step ends
                effects.startRoll(new RollingEffect.StartRoll(roll.name()));
            }
        }
        if (seed != null) {
            state = state.seeded(seed);
        }
    }

    /** A node that joined during the roll is rolled too, after the others. */
    void addJoined(NodeFacts f) {
        state = state.joined(new Slot(f.name(), f.role()));
        rolls.put(f.name(), new NodeRunner(ports, host, f, state.total(), state.total(), null));
    }

    /** Starts every queued node that may start now; tells the run when it is idle or blocked. */
    void pump() {
        if (!run.loop().rolling() || state.untaintsPending() > 0) {
            return;
        }
        if (!run.loop().stopping()) {
            NodeRunner seed = state.seed() == null ? null : rolls.get(state.seed());
            carryOut(RollingStep.starts(state, view::facts, view.safetyView(), seed != null && !seed.finished()));
        }
        carryOut(RollingStep.settle(state, run.loop().stopping(), ports.settings().timeouts().stall()));
    }

    void finished(NodeRunner roll) {
        state = state.ended(roll.name());
        silences.expire(roll.name()); // every way a node's step ends; never fails
        RollingStep.ended(roll.name(), roll.end(), view.facts(roll.name())).forEach(e -> RollingEffect.dispatch(e, effects));
    }

    void abandonInFlight(String why) {
        for (NodeRunner roll : List.copyOf(rolls.values())) {
            if (state.inFlight().containsKey(roll.name())) {
                roll.abandon(why);
            }
        }
        state = state.noneInFlight();
    }

    void abandonQueued(String why) {
        for (Slot slot : state.queue()) {
            rolls.get(slot.name()).abandon(why);
        }
    }

    void cancelBlockedTimer() {
        carryOut(RollingStep.cancelBlocked(state));
    }

    private void queue(NodeRunner roll) {
        rolls.put(roll.name(), roll);
        state = state.queued(new Slot(roll.name(), roll.role()));
    }

    private void carryOut(RollingStep.Step step) {
        state = step.state();
        step.effects().forEach(e -> RollingEffect.dispatch(e, effects));
    }

    /** Carries out each effect; a start, a drop, a new roll and an untaint are recorded in the state as they happen. */
    private final class Effects implements RollingEffect.Handler {
        @Override
        public void startRoll(RollingEffect.StartRoll s) {
            state = state.started(s.node());
            rolls.get(s.node()).start();
        }

        @Override
        public void dropRoll(RollingEffect.DropRoll d) {
            state = state.dropped(d.node());
            rolls.get(d.node()).abandon("not attempted: the node was deleted during the run");
        }

        @Override
        public void deleted(RollingEffect.Deleted d) {
            run.results().ended(d.node(), Outcome.DELETED, d.why());
        }

        @Override
        public void feed(RollingEffect.Feed f) {
            run.loop().feed(f.input());
        }

        @Override
        public void emit(RollingEffect.Emit e) {
            observer.accept(e.event());
        }

        @Override
        public void armBlocked(RollingEffect.ArmBlocked a) {
            blockedTimer = ports.ticker().setTimer(a.after(), () -> {
                blockedTimer = -1;
                carryOut(RollingStep.blockedFired(state, run.loop().rolling(), run.loop().stopping()));
            });
        }

        @Override
        public void cancelBlocked(RollingEffect.CancelBlocked c) {
            if (blockedTimer >= 0) {
                ports.ticker().cancelTimer(blockedTimer);
                blockedTimer = -1;
            }
        }

        @Override
        public void pump(RollingEffect.Pump p) {
            RollingPhase.this.pump();
        }

        @Override
        public void pumpLater(RollingEffect.PumpLater p) {
            run.context().runOnContext(v -> RollingPhase.this.pump()); // not re-entrant: a roll may report from inside pump
        }

        @Override
        public void rollAgain(RollingEffect.RollAgain r) {
            state = state.joined(new Slot(r.facts().name(), r.facts().role()));
            rolls.put(r.facts().name(), new NodeRunner(ports, host, r.facts(), state.total(), state.total(), null, r.note()));
        }

        @Override
        public void untaint(RollingEffect.Untaint u) {
            state = state.untainting(1);
            taints.untaint(u.node()).onComplete(ar -> {
                state = state.untainting(-1);
                RollingPhase.this.pump();
            });
        }
    }
}
