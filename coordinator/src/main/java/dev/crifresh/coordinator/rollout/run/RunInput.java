package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.rollout.plan.NoAttestations;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import java.util.List;
import java.util.Map;

/** What happened: the answers of effects (with their epoch) and the world's news. */
sealed interface RunInput {

    record LockAcquired() implements RunInput {
    }

    record LockNotAcquired(String why) implements RunInput {
    }

    record LockLost(String why) implements RunInput {
    }

    record LockAbandoned() implements RunInput {
    }

    record Interrupt() implements RunInput {
    }

    /** The informers run and every node was classified ({@code selected} nodes). */
    record Observed(int selected) implements RunInput {
    }

    record ObserveFailed(String why, boolean retryable) implements RunInput {
    }

    record ObserveDue() implements RunInput {
    }

    /** No node is config-pending (any more). */
    record ConfigReady() implements RunInput {
    }

    /** @param details each node still config-pending, with its latest classification's detail */
    record ConfigTimedOut(Map<String, String> details) implements RunInput {
    }

    record Planned(RolloutPlan plan) implements RunInput {
    }

    record PlanFailed(String why) implements RunInput {
    }

    record GatesPassed(RolloutPlan plan) implements RunInput {
    }

    /** @param failed each skipped node whose pull proof failed, with why; empty when the proof could not run ({@code cause}) */
    record ProofsFailed(Map<String, String> failed, String cause) implements RunInput {
    }

    /** No selected node carries a verifiable attestation of its current boot ({@link NoAttestations}): stop, exit 6. */
    record NoAttestationsFound(NoAttestations found) implements RunInput {
    }

    /** @param refused each node whose reboot would take the API server away, with why */
    record PreflightRefused(Map<String, String> refused) implements RunInput {
    }

    /** The driver check is done: {@code problems} (node → why; empty when all is well), {@code reported} the nodes in the report. */
    record Prechecked(List<NodeFacts> reboots, List<NodeFacts> leftovers, Map<String, String> problems, List<String> reported)
            implements RunInput {
    }

    /** Leftovers released ({@code failure} null) before {@code then}: the wait {@code next} for {@code nodes}, or their placement. */
    record Released(RunStep.After then, List<NodeFacts> nodes, RunStep.Waiting next, String failure) implements RunInput {
    }

    record Placed(List<NodeFacts> ordered, int budget) implements RunInput {
    }

    record FreshWaitEnded() implements RunInput {
    }

    /** @param details each node still waited for, with its latest verdict, reason and detail */
    record FreshTimedOut(Map<String, String> details) implements RunInput {
    }

    /** With action auto, a node joined during the wait: rebooted after it. */
    record JoinedAfterWait(NodeFacts node) implements RunInput {
    }

    /** A node's roll, a joined node or a deletion stops the run. */
    record Halt(StopReason reason, String why) implements RunInput {
    }

    /** Nothing could start for {@code --stall-timeout}. */
    record Blocked(String why) implements RunInput {
    }

    /** Nothing is in flight and nothing can start: the inventory, or the end. */
    record Idle() implements RunInput {
    }

    record InventoryFailed(String why) implements RunInput {
    }

    record InventoryDone(int selected) implements RunInput {
    }

    /** The nodes of a run that never got the Lease were classified for its report. */
    record Reported() implements RunInput {
    }
}
