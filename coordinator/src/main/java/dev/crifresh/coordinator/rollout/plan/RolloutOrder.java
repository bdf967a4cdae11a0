package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import java.util.Comparator;
import java.util.List;

/**
 * The order nodes are started in (pure): nodes an earlier run already rebooted or was rebooting
 * (resumed, they are in progress anyway), then workers — those already unavailable first, as they cost
 * no extra budget — then control planes; by name within each. A node an earlier run left in phase
 * draining is not special: it is released first and takes its place among the others.
 */
public final class RolloutOrder {
    private RolloutOrder() {
    }

    public static List<NodeFacts> order(List<NodeFacts> toRoll) {
        return toRoll.stream().sorted(Comparator.comparingInt(RolloutOrder::rank).thenComparing(NodeFacts::name)).toList();
    }

    static int rank(NodeFacts n) {
        Ownership owner = Ownership.parse(n.annotation(CrifreshAnnotations.ROLLOUT));
        if (owner != null && owner.phase().mayHaveRebooted()) {
            return 0;
        }
        if (roleRank(n.role()) > 0) {
            return 3;
        }
        return n.unavailable() ? 1 : 2;
    }

    /**
     * Workers before control planes: the one rule both this order and a node queued while the roll is under way
     * (joined, or rolled again) follow.
     */
    public static int roleRank(Role role) {
        return role == Role.CONTROL_PLANE ? 1 : 0;
    }
}
