package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Which queued node rolls start now, decided without touching them: the seed alone while it lasts; else workers
 * in queue order as many as the budget allows, then the first control plane only when
 * {@link Budget#controlPlaneBlocker} has no objection; a queued node that was deleted is dropped. The run's
 * {@code RollingPhase} carries the moves out in order.
 *
 * @param moves    what to do, in queue order
 * @param blocker  why the first queued node that could not start waits, or null
 * @param seedOver whether the seed no longer holds the others back (it ended, or its node is gone, or there is none)
 */
public record RollStarts(List<Move> moves, String blocker, boolean seedOver) {
    /** A roll queued or in flight, as the decision sees it. */
    public record Slot(String name, Role role) {
    }

    /** Start the node's roll, or drop it (its node was deleted: not attempted). */
    public record Move(String node, Kind kind) {
        public enum Kind { START, DROP }
    }

    /**
     * @param queue    the queued rolls, workers before control planes
     * @param inFlight the rolls in flight, with their roles
     * @param seed     the stale worker rolled first and alone until its roll ends, or null (none, or it ended)
     * @param facts    the nodes' latest state (null once deleted)
     * @param nodes    the latest state of every node of the cluster, selected or not
     * @param budget   how many nodes may be unavailable at once
     */
    public static RollStarts decide(List<Slot> queue, Map<String, Role> inFlight, String seed,
                                    Function<String, NodeFacts> facts, List<NodeFacts> nodes, int budget) {
        Set<String> flying = new LinkedHashSet<>(inFlight.keySet());
        Map<String, String> unavailable = Budget.unavailable(nodes, flying);
        if (seed != null && facts.apply(seed) != null) {
            if (flying.contains(seed)) {
                return new RollStarts(List.of(), null, false);
            }
            if (Budget.workerFits(seed, unavailable, budget)) {
                return new RollStarts(List.of(new Move(seed, Move.Kind.START)), null, false);
            }
            return new RollStarts(List.of(), seed + " (the seed) waits: " + Budget.describe(unavailable, budget), false);
        }
        Map<String, Role> roles = new LinkedHashMap<>(inFlight);
        List<Slot> left = new ArrayList<>(queue);
        List<Move> moves = new ArrayList<>();
        String blocker = null;
        for (Slot slot : queue) {
            NodeFacts f = facts.apply(slot.name());
            if (f == null) {
                left.remove(slot);
                moves.add(new Move(slot.name(), Move.Kind.DROP));
                continue;
            }
            if (slot.role() == Role.WORKER) {
                if (Budget.workerFits(slot.name(), unavailable, budget)) {
                    left.remove(slot);
                    flying.add(slot.name());
                    roles.put(slot.name(), slot.role());
                    moves.add(new Move(slot.name(), Move.Kind.START));
                    unavailable.put(slot.name(), "in progress");
                } else if (blocker == null) {
                    blocker = slot.name() + " waits: " + Budget.describe(unavailable, budget);
                }
                continue;
            }
            boolean workersLeft = left.stream().anyMatch(s -> s.role() == Role.WORKER)
                    || flying.stream().anyMatch(n -> roles.get(n) == Role.WORKER);
            String why = Budget.controlPlaneBlocker(f, nodes, flying, workersLeft);
            if (why == null) {
                moves.add(new Move(slot.name(), Move.Kind.START));
            } else if (blocker == null) {
                blocker = slot.name() + " waits: " + why;
            }
            break;
        }
        return new RollStarts(List.copyOf(moves), blocker, true);
    }
}
