package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.rollout.plan.RollStarts.Slot;
import dev.crifresh.coordinator.rollout.plan.RolloutOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the rolling phase is, as a value ({@link RollingStep} decides on it, {@link RollingPhase} carries the effects
 * out): which rolls are queued and which are in flight, the budget, the blocked timer, and the taints still coming off.
 *
 * @param budget          how many nodes may be unavailable at once
 * @param total           how many nodes this run rolls (it grows as nodes join or are rolled again): the last roll's index
 * @param queue           the queued rolls, workers before control planes ({@link RolloutOrder#roleRank})
 * @param inFlight        the rolls in flight, with their roles, in the order started
 * @param seed            the stale worker rolled first and alone because no fresh node can take evicted pods, until it
 *                        ends; or null
 * @param blockedBecause  why the first queued node that could not start waits (the last pump's answer), or null
 * @param blockedArmed    the blocked timer is set ({@code --stall-timeout} with nothing in flight and nodes waiting)
 * @param untaintsPending taint removals after a reboot still under way: no new node starts until they are done
 */
record RollingState(int budget, int total, List<Slot> queue, Map<String, Role> inFlight, String seed, String blockedBecause,
                    boolean blockedArmed, int untaintsPending) {
    RollingState {
        queue = List.copyOf(queue);
        inFlight = Collections.unmodifiableMap(new LinkedHashMap<>(inFlight));
    }

    /** Nothing queued, nothing in flight. */
    static RollingState idle() {
        return new RollingState(0, 0, List.of(), Map.of(), null, null, false, 0);
    }

    /** The roll step begins with {@code budget} and {@code total} nodes to roll. */
    RollingState begun(int budget, int total) {
        return new RollingState(budget, total, queue, inFlight, seed, blockedBecause, blockedArmed, untaintsPending);
    }

    /** Queues a roll after the ones queued before — a worker before every queued control plane. */
    RollingState queued(Slot slot) {
        List<Slot> q = new ArrayList<>(queue);
        int at = q.size();
        for (int i = 0; i < q.size(); i++) {
            if (RolloutOrder.roleRank(q.get(i).role()) > RolloutOrder.roleRank(slot.role())) {
                at = i;
                break;
            }
        }
        q.add(at, slot);
        return withQueues(q, inFlight);
    }

    /** One more node to roll (joined, or rolled again), queued; it is roll number {@link #total()} of the new state. */
    RollingState joined(Slot slot) {
        return new RollingState(budget, total + 1, queue, inFlight, seed, blockedBecause, blockedArmed, untaintsPending)
                .queued(slot);
    }

    /** The queued roll of {@code node} starts: it leaves the queue and is in flight. */
    RollingState started(String node) {
        Slot slot = slot(node);
        List<Slot> q = new ArrayList<>(queue);
        q.remove(slot);
        Map<String, Role> flying = new LinkedHashMap<>(inFlight);
        flying.put(node, slot.role());
        return withQueues(q, flying);
    }

    /** The queued roll of {@code node} is dropped (its node was deleted before its turn). */
    RollingState dropped(String node) {
        List<Slot> q = new ArrayList<>(queue);
        q.remove(slot(node));
        return withQueues(q, inFlight);
    }

    /** The roll of {@code node} reported its end: it is in flight no more. */
    RollingState ended(String node) {
        Map<String, Role> flying = new LinkedHashMap<>(inFlight);
        flying.remove(node);
        return withQueues(queue, flying);
    }

    /** Every roll in flight was abandoned (the run is interrupted). */
    RollingState noneInFlight() {
        return withQueues(queue, Map.of());
    }

    RollingState seeded(String node) {
        return new RollingState(budget, total, queue, inFlight, node, blockedBecause, blockedArmed, untaintsPending);
    }

    RollingState blocked(String because) {
        return new RollingState(budget, total, queue, inFlight, seed, because, blockedArmed, untaintsPending);
    }

    RollingState armed(boolean armed) {
        return new RollingState(budget, total, queue, inFlight, seed, blockedBecause, armed, untaintsPending);
    }

    /** One more ({@code +1}) or one fewer ({@code -1}) taint removal under way. */
    RollingState untainting(int delta) {
        return new RollingState(budget, total, queue, inFlight, seed, blockedBecause, blockedArmed, untaintsPending + delta);
    }

    /** The queued slot of {@code node}; a node that is not queued fails loudly. */
    private Slot slot(String node) {
        for (Slot s : queue) {
            if (s.name().equals(node)) {
                return s;
            }
        }
        throw new IllegalStateException(node + " is not queued");
    }

    private RollingState withQueues(List<Slot> q, Map<String, Role> flying) {
        return new RollingState(budget, total, q, flying, seed, blockedBecause, blockedArmed, untaintsPending);
    }
}
