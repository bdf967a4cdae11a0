package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.plan.Budget;
import dev.crifresh.coordinator.rollout.plan.RolloutOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The run's node rolls: which are queued, which are in flight, and which queued ones may start now —
 * workers first (in queue order) as many at once as the budget allows, then control planes one at a time,
 * each only when {@link Budget#controlPlaneBlocker} has no objection. Every call happens on the run's context.
 */
final class RollScheduler {
    private final Map<String, NodeRunner> rolls = new LinkedHashMap<>();
    private final List<NodeRunner> queue = new ArrayList<>();
    private final Set<String> inFlight = new LinkedHashSet<>();
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
        Map<String, String> unavailable = Budget.unavailable(nodes, inFlight);
        NodeRunner seedRoll = seed == null ? null : rolls.get(seed);
        if (seedRoll != null && !seedRoll.finished() && facts.apply(seed) != null) {
            if (inFlight.contains(seed)) {
                return null;
            }
            if (Budget.workerFits(seed, unavailable, budget)) {
                start(seedRoll);
                return null;
            }
            return seed + " (the seed) waits: " + Budget.describe(unavailable, budget);
        }
        seed = null;
        String blocker = null;
        for (NodeRunner roll : List.copyOf(queue)) {
            NodeFacts f = facts.apply(roll.name());
            if (f == null) {
                queue.remove(roll);
                roll.abandon("not attempted: the node was deleted during the run");
                continue;
            }
            if (roll.role() == Role.WORKER) {
                if (Budget.workerFits(roll.name(), unavailable, budget)) {
                    start(roll);
                    unavailable.put(roll.name(), "in progress");
                } else if (blocker == null) {
                    blocker = roll.name() + " waits: " + Budget.describe(unavailable, budget);
                }
                continue;
            }
            boolean workersLeft = queue.stream().anyMatch(r -> r.role() == Role.WORKER)
                    || inFlight.stream().anyMatch(n -> rolls.get(n).role() == Role.WORKER);
            String why = Budget.controlPlaneBlocker(f, nodes, inFlight, workersLeft);
            if (why == null) {
                start(roll);
            } else if (blocker == null) {
                blocker = roll.name() + " waits: " + why;
            }
            break;
        }
        return blocker;
    }
}
