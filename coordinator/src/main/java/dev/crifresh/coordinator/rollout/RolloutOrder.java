package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import java.util.Comparator;
import java.util.List;

/**
 * The order nodes are started in (pure): nodes an earlier run already rebooted or was rebooting
 * (resumed, they are in progress anyway), then nodes an earlier run had cordoned, then workers — those
 * already unavailable first, as they cost no extra budget — then control planes; by name within each.
 */
public final class RolloutOrder {
    private RolloutOrder() {
    }

    public static List<NodeFacts> order(List<NodeFacts> toRoll) {
        return toRoll.stream().sorted(Comparator.comparingInt(RolloutOrder::rank).thenComparing(NodeFacts::name)).toList();
    }

    static int rank(NodeFacts n) {
        Ownership owner = Ownership.parse(n.annotation(CrifreshAnnotations.ROLLOUT));
        if (owner != null) {
            return owner.phase().mayHaveRebooted() ? 0 : 1;
        }
        if (n.role() == Role.CONTROL_PLANE) {
            return 4;
        }
        return n.unavailable() ? 2 : 3;
    }
}
