package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.kube.ClusterAutoscaler;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Decision;
import java.util.Collection;
import java.util.List;

/** What a run decides from a classification (pure): shared by {@code plan} and {@code rollout}. */
public final class Decisions {
    private Decisions() {
    }

    public static Decision of(Classification c, Action action) {
        if (c.verdict() == NodeVerdict.FRESH || leaving(c.node()) != null) {
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

    /**
     * Why the node is leaving the cluster (the report's detail), or null: it carries the cluster autoscaler's
     * {@code ToBeDeletedByClusterAutoscaler} (being drained for deletion) or {@code DeletionCandidateOfClusterAutoscaler}
     * (found unneeded) taint. Such a node is not rolled: its containerd goes with it, and a reboot would only fight the
     * autoscaler's drain.
     */
    public static String leaving(NodeFacts n) {
        for (String key : ClusterAutoscaler.LEAVING_TAINTS) {
            if (n.tainted(key)) {
                return "leaving: the cluster autoscaler is removing it (taint " + key + "); not rolled";
            }
        }
        return null;
    }

    /** An earlier run's ownership annotation on the node, or null. */
    public static Ownership leftover(NodeFacts n) {
        return Ownership.parse(n.annotation(CrifreshAnnotations.ROLLOUT));
    }

    /** The nodes a rollout would reboot (or with action none, wait for), in the order it would start them. */
    public static List<String> order(Collection<Classification> classifications) {
        List<NodeFacts> toRoll = classifications.stream()
                .filter(c -> c.verdict().needsReboot() && leaving(c.node()) == null)
                .map(Classification::node)
                .toList();
        return RolloutOrder.order(toRoll).stream().map(NodeFacts::name).toList();
    }
}
