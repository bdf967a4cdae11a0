package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.rollout.plan.Budget;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.Phase;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What is re-checked right before the reboot driver is called (pure), on a fresh read of the node and of
 * every node of the cluster — the node may have changed since its drain began, and another coordinator, an
 * operator or the platform may have changed others:
 * <ul>
 *   <li>the node is the same machine (UID) and still owned by this run (phase draining, or verifying before a
 *       second reboot) — else hands off;</li>
 *   <li>it keeps its InternalIPs, is still cordoned and has a boot id — else it is released, not rebooted;</li>
 *   <li>a worker: the nodes unavailable now (NotReady, cordoned, in progress here), itself included, fit the
 *       budget; a control plane: every other control plane is Ready — else wait (bounded).</li>
 * </ul>
 * The Lease is checked separately, before the check and again right before the call.
 */
final class LastMomentCheck {
    sealed interface Verdict permits Go, Wait, RollBack, HandsOff {
    }

    /** Reboot now; {@code bootId} and {@code resourceVersion} are the fresh read's. */
    record Go(String bootId, String resourceVersion) implements Verdict {
    }

    /** Not now: wait (bounded) and check again. */
    record Wait(String why) implements Verdict {
    }

    /** Never reboot: release the node (uncordon what we cordoned). */
    record RollBack(String why) implements Verdict {
    }

    /** Never reboot and do not touch the node: it is gone, replaced, or owned by someone else. */
    record HandsOff(String why) implements Verdict {
    }

    private LastMomentCheck() {
    }

    /**
     * @param runId    this run's id
     * @param started  the node as it was when its roll started
     * @param fresh    the node just read (null: deleted)
     * @param cluster  every node of the cluster, just read
     * @param inFlight this run's nodes in progress (the node itself included)
     * @param budget   how many nodes may be unavailable at once
     */
    static Verdict check(String runId, NodeFacts started, NodeFacts fresh, Collection<NodeFacts> cluster,
                         Set<String> inFlight, int budget) {
        return check(runId, false, started, fresh, cluster, inFlight, budget);
    }

    /**
     * @param recorded this run recorded phase rebooting and has not called the driver (an API outage came in
     *                 between): that phase is ours too, as long as the node still reports the boot id recorded
     */
    static Verdict check(String runId, boolean recorded, NodeFacts started, NodeFacts fresh, Collection<NodeFacts> cluster,
                         Set<String> inFlight, int budget) {
        if (fresh == null) {
            return new HandsOff("the node was deleted");
        }
        if (started.uid() != null && !started.uid().equals(fresh.uid())) {
            return new HandsOff("the node was replaced (UID " + started.uid() + " is now " + fresh.uid() + ")");
        }
        Ownership owner = Ownership.parse(fresh.annotation(CrifreshAnnotations.ROLLOUT));
        // draining; verifying when a node still stale after its first reboot is drained for a second one
        boolean stillBefore = recorded && owner != null && owner.phase() == Phase.REBOOTING && fresh.bootId() != null
                && fresh.bootId().equals(fresh.annotation(CrifreshAnnotations.BOOT_ID));
        if (owner == null || !owner.runId().equals(runId)
                || (owner.phase() != Phase.DRAINING && owner.phase() != Phase.VERIFYING && !stillBefore)) {
            return new HandsOff("its " + CrifreshAnnotations.ROLLOUT + " is now "
                    + (owner == null ? "gone" : "'" + fresh.annotation(CrifreshAnnotations.ROLLOUT) + "'")
                    + ", not " + runId + "/" + Phase.DRAINING.wire());
        }
        if (!Set.copyOf(started.internalIps()).equals(Set.copyOf(fresh.internalIps()))) {
            return new RollBack("its InternalIP changed from " + started.internalIps() + " to " + fresh.internalIps());
        }
        if (!fresh.unschedulable()) {
            return new RollBack("it was uncordoned by someone else");
        }
        if (fresh.bootId() == null) {
            return new RollBack("it reports no boot id, so its reboot could not be verified");
        }
        if (fresh.role() == Role.CONTROL_PLANE) {
            for (NodeFacts n : cluster) {
                if (n.role() == Role.CONTROL_PLANE && !n.name().equals(fresh.name()) && !n.ready()) {
                    return new Wait("control-plane node " + n.name() + " is not Ready");
                }
            }
        } else {
            Set<String> others = new HashSet<>(inFlight);
            others.remove(fresh.name());
            List<NodeFacts> rest = cluster.stream().filter(n -> !n.name().equals(fresh.name())).toList();
            Map<String, String> unavailable = Budget.unavailable(rest, others);
            if (!Budget.workerFits(fresh.name(), unavailable, budget)) {
                return new Wait(Budget.describe(unavailable, budget));
            }
        }
        return new Go(fresh.bootId(), fresh.resourceVersion());
    }
}
