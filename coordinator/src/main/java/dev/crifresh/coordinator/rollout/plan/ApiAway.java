package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import java.time.Duration;
import java.util.Collection;

/**
 * Whether rebooting a node takes the coordinator's API server away for the whole reboot (pure): the node is
 * the cluster's only control plane (a small Talos cluster), or the address the coordinator reaches the API
 * server at is one of the node's own (its name or an InternalIP). The run then cannot renew its Lease until
 * the node is back; without {@code --api-outage-budget} such a reboot is refused before any node is touched.
 */
public final class ApiAway {
    private ApiAway() {
    }

    /**
     * @param cluster every node of the cluster (selected or not)
     * @param apiHost the host of the API server URL the coordinator uses, or null when unknown
     * @return why rebooting {@code node} takes the API server away, or null
     */
    public static String why(NodeFacts node, Collection<NodeFacts> cluster, String apiHost) {
        if (apiHost != null && (apiHost.equalsIgnoreCase(node.name()) || node.internalIps().contains(apiHost))) {
            return "the coordinator reaches the API server at " + apiHost + ", an address of this node";
        }
        if (node.role() == Role.CONTROL_PLANE
                && cluster.stream().noneMatch(n -> n.role() == Role.CONTROL_PLANE && !n.name().equals(node.name()))) {
            return "it is the cluster's only control plane, so the API server runs only there";
        }
        return null;
    }

    /** The refusal without an outage budget: what happens, and the flag that allows it. */
    public static String refusal(String why) {
        return "rebooting it takes the API server away (" + why + "): the run could not renew its Lease until the node is"
                + " back; allow it with --api-outage-budget=<how long the API server may be away, e.g. 5m>";
    }

    /** The note when the budget allows it. */
    public static String allowed(String why, Duration budget) {
        return "rebooting it takes the API server away (" + why + "); --api-outage-budget "
                + DurationText.format(budget) + ": the run sends nothing while the API server is away and goes on once"
                + " its Lease is renewed again";
    }
}
