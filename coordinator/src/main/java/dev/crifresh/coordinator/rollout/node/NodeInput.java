package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.rollout.plan.Phase;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Set;

/** What a node's roll learns ({@link NodeStep}): the answers to its effects and what the run observes. */
sealed interface NodeInput {
    /** The run starts the roll; {@code facts}: the node now, or null when it was deleted. */
    record Start(NodeFacts facts) implements NodeInput {
    }

    /** A gate answered: its verdict, or {@code error} when it could not be checked; {@code stopping}: the run is. */
    record GateAnswered(GateVerdict verdict, String error, boolean stopping) implements NodeInput {
    }

    /** A guarded patch landed (or was already there); {@code uncordoned}: a release that uncordoned. */
    record Patched(Node node, boolean uncordoned) implements NodeInput {
    }

    /** A guarded patch was refused on a fact about the node (gone, owned by someone else). */
    record Refused(String why) implements NodeInput {
    }

    /** The run no longer holds the Lease: it ends, and abandons the roll. */
    record Fenced() implements NodeInput {
    }

    /** A call failed (after its retries). */
    record Failed(String error) implements NodeInput {
    }

    /** Every pod to evict is gone. */
    record Drained() implements NodeInput {
    }

    /** The drain did not finish in time. */
    record DrainFailed(String why) implements NodeInput {
    }

    /**
     * The last-moment check's fresh read: the node (null: deleted) and every node, what the run has in flight and
     * its budget, the fence's lapses when the read was sent, and the time.
     */
    record Read(Node node, List<NodeFacts> cluster, Set<String> inFlight, int budget, int lapse, long nowNanos)
            implements NodeInput {
    }

    /** Phase rebooting is recorded with {@code bootId}; {@code lapses} and {@code stopping}: the run now. */
    record Recorded(Node node, String bootId, int lapses, boolean stopping) implements NodeInput {
    }

    /** The phase rebooting patch was refused, and the check on the node read again did not say go. */
    record RecordRefused(LastMomentCheck.Verdict verdict, long nowNanos) implements NodeInput {
    }

    /** The Lease was read right before the reboot request and still names this run; {@code lapses}: the fence's now. */
    record Confirmed(int lapses) implements NodeInput {
    }

    /** The reboot request was refused on the worker by the Lease fence before anything was sent. */
    record DriverRefused() implements NodeInput {
    }

    /** The reboot driver returned ({@code error} null) or failed. */
    record DriverAnswered(String error) implements NodeInput {
    }

    /** The run's copy of the node changed (null: deleted). */
    record NodeUpdated(NodeFacts facts) implements NodeInput {
    }

    /** The node was classified as it is now. */
    record Classified(NodeFacts facts, Classification classification) implements NodeInput {
    }

    /** The informer saw the node disappear. */
    record NodeDeleted() implements NodeInput {
    }

    /** The roll's timer fired. */
    record TimerFired() implements NodeInput {
    }

    /** The run may write again after an allowed API outage: what was held back is decided anew. */
    record Outage() implements NodeInput {
    }

    /** The run stops taking on new work. */
    record Stopping() implements NodeInput {
    }

    /** The run was interrupted: the roll stops where it is. */
    record Abandon(String why) implements NodeInput {
    }
}
