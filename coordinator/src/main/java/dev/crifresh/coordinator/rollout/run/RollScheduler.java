package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.plan.RollStarts;
import dev.crifresh.coordinator.rollout.plan.RolloutOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The run's node rolls: which are queued, which are in flight, and starting the queued ones that may start now
 * (the pure decision: {@link RollStarts}). Every call happens on the run's context.
 */
final class RollScheduler {
    private final Map<String, NodeRunner> rolls = new LinkedHashMap<>();
    private final List<NodeRunner> queue = new ArrayList<>();
    private final Set<String> inFlight = new LinkedHashSet<>();
    /** The queued nodes the last {@link #startWhatFits} dropped because they were deleted. */
    private final List<String> dropped = new ArrayList<>();
    /** The stale worker rolled first and alone because no fresh node can take evicted pods, until it ends. */
    private String seed;

    /** Queues a roll, after the ones queued before — a worker before every queued control plane ({@link RolloutOrder#roleRank}). */
    void add(NodeRunner roll) {
        rolls.put(roll.name(), roll);
        int at = queue.size();
        for (int i = 0; i < queue.size(); i++) {
            if (RolloutOrder.roleRank(queue.get(i).role()) > RolloutOrder.roleRank(roll.role())) {
                at = i;
                break;
            }
        }
        queue.add(at, roll);
    }

    /** Until this node's roll ends, no other queued roll starts (see {@code EvictionPlacement}). */
    void seed(String name) {
        seed = name;
    }

    /** The node's roll, or null when the node is not rolled. */
    NodeRunner roll(String name) {
        return rolls.get(name);
    }

    /** The node's roll while it is in flight, else null. */
    NodeRunner inFlight(String name) {
        return inFlight.contains(name) ? rolls.get(name) : null;
    }

    /** The queued rolls, in order (a copy). */
    List<NodeRunner> queued() {
        return List.copyOf(queue);
    }

    boolean queueEmpty() {
        return queue.isEmpty();
    }

    /** The names of the rolls in flight (a copy). */
    Set<String> inFlightNames() {
        return Set.copyOf(inFlight);
    }

    boolean noneInFlight() {
        return inFlight.isEmpty();
    }

    /** Starts a roll now, whatever the budget says. */
    void start(NodeRunner roll) {
        queue.remove(roll);
        inFlight.add(roll.name());
        roll.start();
    }

    /** The roll reported its end. */
    void finished(NodeRunner roll) {
        inFlight.remove(roll.name());
    }

    /** The queued nodes the last {@link #startWhatFits} dropped because they were deleted (a copy). */
    List<String> dropped() {
        return List.copyOf(dropped);
    }

    /** Abandons every roll in flight (the run is interrupted); they count as in flight no more. */
    void abandonInFlight(String why) {
        for (NodeRunner roll : rolls.values()) {
            if (inFlight.contains(roll.name())) {
                roll.abandon(why);
            }
        }
        inFlight.clear();
    }

    /** Abandons every queued roll (the run finishes). */
    void abandonQueued(String why) {
        for (NodeRunner roll : queue) {
            roll.abandon(why);
        }
    }

    /**
     * Starts every queued roll that may start now; a queued node that was deleted is dropped as not attempted.
     *
     * @param facts  the nodes' latest state (null once deleted)
     * @param nodes  the latest state of every node of the cluster, selected or not (the safety checks must
     *               see nodes a node selector leaves out)
     * @param budget how many nodes may be unavailable at once
     * @return why the first queued node that could not start waits, or null
     */
    String startWhatFits(Function<String, NodeFacts> facts, List<NodeFacts> nodes, int budget) {
        dropped.clear();
        NodeRunner seedRoll = seed == null ? null : rolls.get(seed);
        Map<String, Role> flying = new LinkedHashMap<>();
        inFlight.forEach(n -> flying.put(n, rolls.get(n).role()));
        RollStarts starts = RollStarts.decide(queue.stream().map(r -> new RollStarts.Slot(r.name(), r.role())).toList(), flying,
                seedRoll != null && !seedRoll.finished() ? seed : null, facts, nodes, budget);
        if (starts.seedOver()) {
            seed = null;
        }
        for (RollStarts.Move move : starts.moves()) {
            NodeRunner roll = rolls.get(move.node());
            switch (move.kind()) {
                case START -> start(roll);
                case DROP -> {
                    queue.remove(roll);
                    roll.abandon("not attempted: the node was deleted during the run");
                    dropped.add(roll.name());
                }
                default -> throw new IllegalStateException("unhandled move " + move);
            }
        }
        return starts.blocker();
    }
}
