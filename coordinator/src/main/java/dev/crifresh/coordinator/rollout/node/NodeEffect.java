package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** What a node's roll asks to be done ({@link NodeStep}); {@link NodeRunner} carries it out and answers with a {@link NodeInput}. */
sealed interface NodeEffect {
    /** Wait out the gates before it is taken down. */
    record Gate(NodeFacts facts) implements NodeEffect {
    }

    /** One guarded patch: ownership {@code draining} and, when schedulable, the cordon. */
    record Claim() implements NodeEffect {
    }

    /** Evict its pods ({@link DrainRunner}). */
    record StartDrain() implements NodeEffect {
    }

    /** Read the node and every node again, for the last-moment check. */
    record ReadForCheck() implements NodeEffect {
    }

    /**
     * Record phase rebooting and the boot id, decided on {@code node} (the fresh read) and, when its guard is
     * refused, on the node read again with the same check.
     */
    record RecordRebooting(Node node, List<NodeFacts> cluster, Set<String> inFlight, int budget, boolean recorded) implements NodeEffect {
    }

    /** Silence its alerts, then read the Lease once more. */
    record SilenceAndConfirm() implements NodeEffect {
    }

    /** The reboot request. */
    record CallDriver(Node node) implements NodeEffect {
    }

    /** A guarded patch: phase verifying. */
    record MarkVerifying() implements NodeEffect {
    }

    /** The gates after its return. */
    record Prove() implements NodeEffect {
    }

    /**
     * A guarded patch: uncordon (only what crifresh cordoned), drop the crifresh annotations; with {@code bootId}, only
     * while the node still reports it (a record judged never carried out).
     */
    record Release(boolean cordonedByUs, String bootId) implements NodeEffect {
        Release(boolean cordonedByUs) {
            this(cordonedByUs, null);
        }
    }

    /** The run may not write now: answer {@link NodeInput.Outage} once it may again (a lost Lease ends the run instead). */
    record AwaitMayWrite() implements NodeEffect {
    }

    /** A guarded patch: phase back to draining (a resumed node still stale). */
    record ResetPhase() implements NodeEffect {
    }

    /** Look at the run's copy of the node (answered with {@link NodeInput.NodeUpdated}). */
    record Look() implements NodeEffect {
    }

    /** Classify the node now (answered with {@link NodeInput.Classified}). */
    record Classify() implements NodeEffect {
    }

    /** (Re)arm the roll's one timer. */
    record ArmTimer(Duration delay) implements NodeEffect {
    }

    /** Cancel the roll's timer and stop its drain. */
    record CancelTimer() implements NodeEffect {
    }

    /** A progress line; {@code error}: at level ERROR. */
    record Say(String text, boolean error) implements NodeEffect {
    }

    /** A Kubernetes Event on the node. */
    record Event(EventReason reason, String message) implements NodeEffect {
    }

    /** Tell the run its reboot was requested (reboot order; a resumed node counts). */
    record RebootRequested() implements NodeEffect {
    }

    /** Tell the run the roll ended ({@link NodeState.Done#end()}). */
    record Finish() implements NodeEffect {
    }
}
