package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Decision;
import java.util.Collection;
import java.util.List;

/** What a run decides from a classification (pure): shared by {@code plan} and {@code rollout}. */
public final class Decisions {
    private Decisions() {
    }

    public static Decision of(Classification c, Action action) {
        if (c.verdict() == NodeVerdict.FRESH) {
            return Decision.SKIP;
        }
        if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
            return Decision.WAIT;
        }
        return NodeAction.forNode(action, c.node()).action() == Action.REBOOT ? Decision.REBOOT : Decision.WAIT;
    }

    /**
     * The per-node action a report shows: {@code reboot} or {@code wait-restart}; null for a node the run skips
     * (fresh, nothing to do).
     */
    public static String actionWire(Classification c, Action action, Decision decision) {
        return decision == Decision.SKIP ? null : NodeAction.forNode(action, c.node()).wire();
    }

    /** An earlier run's ownership annotation on the node, or null. */
    public static Ownership leftover(NodeFacts n) {
        return Ownership.parse(n.annotation(CrifreshAnnotations.ROLLOUT));
    }

    /** The nodes a rollout would reboot (or with action none, wait for), in the order it would start them. */
    public static List<String> order(Collection<Classification> classifications) {
        List<NodeFacts> toRoll = classifications.stream()
                .filter(c -> c.verdict().needsReboot())
                .map(Classification::node)
                .toList();
        return RolloutOrder.order(toRoll).stream().map(NodeFacts::name).toList();
    }
}
