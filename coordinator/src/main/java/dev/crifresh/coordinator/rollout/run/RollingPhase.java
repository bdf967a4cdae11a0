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
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.NodeView;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The rolling phase of a run: its {@link NodeRunner}s, started within the budget as they fit ({@link RollScheduler}).
 * <ol>
 *   <li>{@link #start}: every node to reboot is queued in order; nodes an earlier run may already have rebooted start
 *       at once, outside the budget (only waited for); the seed, if any, goes first and alone.</li>
 *   <li>{@link #pump}: whatever fits starts; when nothing is in flight and nothing more may start, the run is idle
 *       ({@link RunInput.Idle}); when nothing can start for {@code --reboot-timeout}, it is {@link RunInput.Blocked}.</li>
 *   <li>{@link #finished}: a roll's end may stop the run ({@link NodeEnd#stops()}); its silence is expired; a
 *       rebooted node's taint comes off before the next node starts, so that evicted pods may land there.</li>
 * </ol>
 * Called on the run's context.
 */
final class RollingPhase {
    /** What the rolls ask of the run. */
    interface RunControl {
        /** Whether the run is in its roll step. */
        boolean rolling();

        boolean stopping();

        void feed(RunInput input);

        /** Runs later on the run's context (not re-entrant: a roll may report from inside {@link #pump}). */
        void later(Runnable action);

        /** The node's roll failed because its Node was deleted: reported deleted, with why. */
        void deleted(String node, String why);
    }

    private final RollScheduler rolls = new RollScheduler();
    private final RollPorts ports;
    private final RollHost host;
    private final NodeView view;
    private final StaleNodeTaints taints;
    private final Supplier<RunSilences> silences;
    private final Consumer<RunEvent> observer;
    private final RunControl run;
    private int budget;
    private int total;
    private long blockedTimer = -1;
    private String blockedBecause;
    /** Taint removals after a reboot still under way: no new node starts until they are done. */
    private int untaintsPending;

    RollingPhase(RollPorts ports, RollHost host, NodeView view, StaleNodeTaints taints, Supplier<RunSilences> silences,
                 Consumer<RunEvent> observer, RunControl run) {
        this.ports = ports;
        this.host = host;
        this.view = view;
        this.taints = taints;
        this.silences = silences;
        this.observer = observer;
        this.run = run;
    }

    int budget() {
        return budget;
    }

    Set<String> inFlight() {
        return rolls.inFlightNames();
    }

    NodeRunner roll(String name) {
        return rolls.roll(name);
    }

    NodeRunner inFlight(String name) {
        return rolls.inFlight(name);
    }

    /** Queues every node in order; resumed ones start at once, the seed is marked. Follow with {@link #pump}. */
    void start(List<NodeFacts> ordered, int budget, String seed, int selected) {
        this.budget = budget;
        this.total = ordered.size();
        observer.accept(new RunEvent.RollStarted(ordered.stream().map(NodeFacts::name).toList(), budget, selected));
        int index = 1;
        for (NodeFacts f : ordered) {
            Ownership owner = Decisions.leftover(f);
            rolls.add(new NodeRunner(ports, host, f, index++, ordered.size(), RolloutPlan.resumed(f) ? owner : null));
        }
        // Their reboot may be under way: only waited for, never rebooted again here, and outside the budget.
        for (NodeRunner roll : rolls.queued()) {
            if (roll.resumed()) {
                silences.get().owe(roll.name()); // the earlier run may have left its silence: expired when this step ends
                rolls.start(roll);
            }
        }
        if (seed != null) {
            rolls.seed(seed);
        }
    }

    /** A node that joined during the roll is rolled too, after the others. */
    void addJoined(NodeFacts f) {
        total++;
        rolls.add(new NodeRunner(ports, host, f, total, total, null));
    }

    /** Starts every queued node that may start now; tells the run when it is idle or blocked. */
    void pump() {
        if (!run.rolling() || untaintsPending > 0) {
            return;
        }
        if (!run.stopping()) {
            blockedBecause = rolls.startWhatFits(view::facts, view.safetyView(), budget);
            rolls.dropped().forEach(name -> run.deleted(name, "the node was deleted during the run, before its turn"));
        }
        switch (RollingRules.afterPump(run.stopping(), rolls.noneInFlight(), rolls.queueEmpty())) {
            case IDLE -> run.feed(new RunInput.Idle());
            case BLOCKED -> armBlockedTimer();
            case ROLLING -> cancelBlockedTimer();
            default -> throw new IllegalStateException("unhandled");
        }
    }

    void finished(NodeRunner roll) {
        rolls.finished(roll);
        silences.get().expire(roll.name()); // every way a node's step ends; never fails
        NodeEnd end = roll.end();
        NodeFacts again = view.facts(roll.name());
        RollingRules.AfterEnd after = RollingRules.afterEnd(roll.name(), end, again != null);
        String deleted = RollingRules.deleted(end, again != null);
        if (deleted != null) {
            run.deleted(roll.name(), deleted);
        }
        if (after.halt() != null) {
            run.feed(after.halt());
        }
        if (after.rollAgain()) {
            total++;
            rolls.add(new NodeRunner(ports, host, again, total, total, null, end.why()));
        }
        if (after.untaintFirst()) {
            untaintsPending++;
            taints.untaint(roll.name()).onComplete(ar -> {
                untaintsPending--;
                pump();
            });
            return;
        }
        run.later(this::pump);
    }

    void abandonInFlight(String why) {
        rolls.abandonInFlight(why);
    }

    void abandonQueued(String why) {
        rolls.abandonQueued(why);
    }

    private void armBlockedTimer() {
        if (blockedTimer >= 0) {
            return;
        }
        if (blockedBecause != null) {
            observer.accept(new RunEvent.Blocked(blockedBecause));
        }
        blockedTimer = ports.ticker().setTimer(ports.settings().timeouts().stall(), () -> {
            blockedTimer = -1;
            if (run.rolling() && RollingRules.afterPump(run.stopping(), rolls.noneInFlight(), rolls.queueEmpty())
                    == RollingRules.AfterPump.BLOCKED) {
                run.feed(new RunInput.Blocked(blockedBecause == null ? "blocked" : blockedBecause));
                pump();
            }
        });
    }

    void cancelBlockedTimer() {
        if (blockedTimer >= 0) {
            ports.ticker().cancelTimer(blockedTimer);
            blockedTimer = -1;
        }
    }
}
