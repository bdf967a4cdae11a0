package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.NodePatches;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.plan.Decisions;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.Phase;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.Collection;
import java.util.Set;
import java.util.function.Function;

/** What a node's roll patches, decided on a copy of the node (pure; {@link GuardedPatch} sends it). */
final class RollPatches {
    private RollPatches() {
    }

    /**
     * Ownership {@code <runId>/draining}, and the cordon when the node is schedulable: only on a node nobody owns;
     * {@code note}: why the node is rolled again (recorded with the ownership), or null.
     */
    static Function<Node, GuardedPatch.Step> claim(String runId, String note) {
        String ours = new Ownership(runId, Phase.DRAINING).toString();
        return node -> {
            if (node == null) {
                return new GuardedPatch.Refuse("the node was deleted");
            }
            NodeFacts f = NodeFacts.of(node);
            Ownership owner = Decisions.leftover(f);
            if (owner != null && owner.runId().equals(runId) && owner.phase() == Phase.DRAINING) {
                return new GuardedPatch.Skip(); // an earlier attempt landed although its answer was lost
            }
            if (owner != null) {
                return new GuardedPatch.Refuse("it is now owned by '" + owner + "'");
            }
            return new GuardedPatch.Patch(NodePatches.claim(node, ours, !f.unschedulable(), note));
        };
    }

    /** A new phase of this run's ownership (or of the earlier run's it resumed, {@code resumed}: its id or null). */
    static Function<Node, GuardedPatch.Step> phase(String runId, String resumed, Phase phase) {
        String ownership = new Ownership(runId, phase).toString();
        return node -> ownedHere(runId, resumed, node) == null ? new GuardedPatch.Refuse(notOursAnyMore(node))
                : new GuardedPatch.Patch(NodePatches.phase(node, ownership, null));
    }

    /**
     * The release: uncordon when {@link #uncordons}, drop the crifresh annotations; with {@code bootId}, only while the
     * node still reports it.
     */
    static GuardedPatch.Step release(String runId, String resumed, boolean cordonedByUs, String bootId, Node node) {
        if (node == null) {
            return new GuardedPatch.Refuse("the node was deleted");
        }
        String now = NodeFacts.of(node).bootId();
        if (bootId != null && !bootId.equals(now)) {
            return new GuardedPatch.Refuse("its boot id changed from " + bootId + " to " + now + ": it is rebooting after all");
        }
        if (NodeFacts.of(node).annotation(CrifreshAnnotations.ROLLOUT) == null) {
            return new GuardedPatch.Skip(); // an earlier attempt landed although its answer was lost
        }
        if (ownedHere(runId, resumed, node) == null) {
            return new GuardedPatch.Refuse(notOursAnyMore(node));
        }
        return new GuardedPatch.Patch(NodePatches.release(node, uncordons(cordonedByUs, node), bootId));
    }

    /** Whether the release uncordons: crifresh cordoned it (this run, or {@code crifresh.dev/cordoned=true}). */
    static boolean uncordons(boolean cordonedByUs, Node node) {
        return cordonedByUs || "true".equals(NodeFacts.of(node).annotation(CrifreshAnnotations.CORDONED));
    }

    /** The record of phase rebooting, decided by the last-moment check on the node; {@code verdict}: the check's. */
    record Recording(LastMomentCheck.Verdict verdict, GuardedPatch.Step step) {
    }

    /**
     * Phase rebooting and the boot id, only when the last-moment check on {@code node} says go; {@code at}: when it
     * is recorded ({@code crifresh.dev/recorded-at}), or null.
     */
    static Recording rebooting(String runId, boolean recorded, NodeFacts startedAs, Collection<NodeFacts> cluster,
                               Set<String> inFlight, int budget, Node node, Instant at) {
        LastMomentCheck.Verdict v = LastMomentCheck.check(runId, recorded, startedAs, node == null ? null : NodeFacts.of(node),
                cluster, inFlight, budget);
        if (v instanceof LastMomentCheck.Go go) {
            String ownership = new Ownership(runId, Phase.REBOOTING).toString();
            return new Recording(v, new GuardedPatch.Patch(NodePatches.phase(node, ownership, go.bootId(), at)));
        }
        return new Recording(v, new GuardedPatch.Refuse("the last-moment check no longer says go"));
    }

    /** The node's ownership when it is this run's (or the earlier run's this one resumed), else null. */
    private static Ownership ownedHere(String runId, String resumed, Node node) {
        if (node == null) {
            return null;
        }
        Ownership owner = Decisions.leftover(NodeFacts.of(node));
        if (owner == null) {
            return null;
        }
        return owner.runId().equals(runId) || owner.runId().equals(resumed) ? owner : null;
    }

    private static String notOursAnyMore(Node node) {
        if (node == null) {
            return "the node was deleted";
        }
        String value = NodeFacts.of(node).annotation(CrifreshAnnotations.ROLLOUT);
        return "its " + CrifreshAnnotations.ROLLOUT + " is now " + (value == null ? "gone" : "'" + value + "'");
    }
}
