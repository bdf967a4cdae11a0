package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Whether a node may start now (pure). Pass it every node of the cluster, not only the selected ones: a
 * node selector must not hide an unavailable node or a NotReady control plane. Workers: the nodes that
 * are unavailable — NotReady, cordoned (by anyone) or in progress in this run — together with the
 * candidate must not exceed the budget. Control planes: only after every worker, one at a time with
 * nothing else in progress, and only while every other control-plane node is Ready.
 */
public final class Budget {
    private Budget() {
    }

    /** Every node that counts against the budget now, with why. */
    public static Map<String, String> unavailable(Collection<NodeFacts> nodes, Set<String> inFlight) {
        Map<String, String> out = new LinkedHashMap<>();
        for (NodeFacts n : nodes) {
            if (inFlight.contains(n.name())) {
                out.put(n.name(), "in progress");
            } else if (!n.ready()) {
                out.put(n.name(), "NotReady");
            } else if (n.unschedulable()) {
                out.put(n.name(), "cordoned");
            }
        }
        return out;
    }

    /** Whether starting {@code candidate} keeps the unavailable nodes within {@code budget}. */
    public static boolean workerFits(String candidate, Map<String, String> unavailable, int budget) {
        int after = unavailable.size() + (unavailable.containsKey(candidate) ? 0 : 1);
        return after <= budget;
    }

    public static String describe(Map<String, String> unavailable, int budget) {
        StringBuilder sb = new StringBuilder("max-unavailable budget of " + budget + " is used by ");
        String sep = "";
        for (Map.Entry<String, String> e : unavailable.entrySet()) {
            sb.append(sep).append(e.getKey()).append(" (").append(e.getValue()).append(')');
            sep = ", ";
        }
        return sb.toString();
    }

    /** @return null when the control-plane node may start, else why not */
    public static String controlPlaneBlocker(NodeFacts candidate, Collection<NodeFacts> nodes, Set<String> inFlight,
                                             boolean workersLeft) {
        if (workersLeft) {
            return "workers go first";
        }
        if (!inFlight.isEmpty()) {
            return "control planes go one at a time, after " + String.join(", ", inFlight);
        }
        for (NodeFacts n : nodes) {
            if (n.role() == Role.CONTROL_PLANE && !n.name().equals(candidate.name()) && !n.ready()) {
                return "control-plane node " + n.name() + " is not Ready";
            }
        }
        return null;
    }
}
