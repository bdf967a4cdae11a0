package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.rollout.node.NodeEnd;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.RollStarts;
import dev.crifresh.coordinator.rollout.run.RollingEffect.*;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The rolling phase's decisions as pure steps over {@link RollingState}: {@code (state, what happened) → (state,
 * effects)}, carried out in order by {@link RollingPhase}. A start or a drop is recorded in the state as it is carried
 * out ({@link RollingState#started}, {@link RollingState#dropped}), because a roll may end from inside its own start.
 * <ol>
 *   <li>{@link #starts}: which queued rolls start or are dropped now ({@link RollStarts}); a dropped node is reported
 *       deleted after the moves.</li>
 *   <li>{@link #settle}: once whatever fits has started ({@link RollingRules#afterPump}): idle tells the run; blocked
 *       sets the blocked timer ({@code --stall-timeout}) once and says why; rolling cancels it.</li>
 *   <li>{@link #blockedFired}: the timer fired; still blocked, the run is told {@link RunInput.Blocked} and pumps.</li>
 *   <li>{@link #ended}: a roll's end ({@link RollingRules#afterEnd}): deleted, halt, rolled again, then its taint
 *       comes off before the next start, or the next pump is queued.</li>
 * </ol>
 */
final class RollingStep {
    static final String DROPPED = "the node was deleted during the run, before its turn";

    private RollingStep() {
    }

    /** The state after a step, and the effects to carry out, in order. */
    record Step(RollingState state, List<RollingEffect> effects) {
        Step {
            effects = List.copyOf(effects);
        }
    }

    /**
     * @param facts     the nodes' latest state (null once deleted)
     * @param nodes     the latest state of every node of the cluster, selected or not
     * @param seedLasts whether the seed's roll has not ended yet
     */
    static Step starts(RollingState s, Function<String, NodeFacts> facts, List<NodeFacts> nodes, boolean seedLasts) {
        RollStarts starts = RollStarts.decide(s.queue(), s.inFlight(), seedLasts ? s.seed() : null, facts, nodes, s.budget());
        RollingState next = s.blocked(starts.blocker());
        if (starts.seedOver()) {
            next = next.seeded(null);
        }
        List<RollingEffect> fx = new ArrayList<>();
        List<RollingEffect> deleted = new ArrayList<>();
        for (RollStarts.Move move : starts.moves()) {
            switch (move.kind()) {
                case START -> fx.add(new StartRoll(move.node()));
                case DROP -> {
                    fx.add(new DropRoll(move.node()));
                    deleted.add(new Deleted(move.node(), DROPPED));
                }
                default -> throw new IllegalStateException("unhandled move " + move);
            }
        }
        fx.addAll(deleted);
        return new Step(next, fx);
    }

    /** What follows once whatever fits has started; {@code limit}: how long nothing may start ({@code --stall-timeout}). */
    static Step settle(RollingState s, boolean stopping, Duration limit) {
        switch (RollingRules.afterPump(stopping, s.inFlight().isEmpty(), s.queue().isEmpty())) {
            case IDLE -> {
                return new Step(s, List.of(new Feed(new RunInput.Idle())));
            }
            case BLOCKED -> {
                if (s.blockedArmed()) {
                    return new Step(s, List.of());
                }
                List<RollingEffect> fx = new ArrayList<>();
                if (s.blockedBecause() != null) {
                    fx.add(new Emit(new RunEvent.Blocked(s.blockedBecause())));
                }
                fx.add(new ArmBlocked(limit));
                return new Step(s.armed(true), fx);
            }
            case ROLLING -> {
                return cancelBlocked(s);
            }
            default -> throw new IllegalStateException("unhandled");
        }
    }

    /** The blocked timer is cancelled, if it is set. */
    static Step cancelBlocked(RollingState s) {
        return s.blockedArmed() ? new Step(s.armed(false), List.of(new CancelBlocked())) : new Step(s, List.of());
    }

    /** The blocked timer fired; {@code rolling}: the run is still in its roll step. */
    static Step blockedFired(RollingState s, boolean rolling, boolean stopping) {
        RollingState next = s.armed(false);
        if (rolling && RollingRules.afterPump(stopping, s.inFlight().isEmpty(), s.queue().isEmpty()) == RollingRules.AfterPump.BLOCKED) {
            String why = s.blockedBecause() == null ? "blocked" : s.blockedBecause();
            return new Step(next, List.of(new Feed(new RunInput.Blocked(why)), new Pump()));
        }
        return new Step(next, List.of());
    }

    /**
     * What a roll's end leads to, after it left the flight ({@link RollingState#ended}).
     *
     * @param again the node's latest state, or null once it was deleted
     */
    static List<RollingEffect> ended(String node, NodeEnd end, NodeFacts again) {
        RollingRules.AfterEnd after = RollingRules.afterEnd(node, end, again != null);
        String deleted = RollingRules.deleted(end, again != null);
        List<RollingEffect> fx = new ArrayList<>();
        if (deleted != null) {
            fx.add(new Deleted(node, deleted));
        }
        if (after.halt() != null) {
            fx.add(new Feed(after.halt()));
        }
        if (after.rollAgain()) {
            fx.add(new RollAgain(again, end.why()));
        }
        fx.add(after.untaintFirst() ? new Untaint(node) : new PumpLater());
        return fx;
    }
}
