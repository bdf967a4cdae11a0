package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import java.time.Duration;
import java.util.List;

/** What the run does: carried out by {@link Rollout}. */
sealed interface RunEffect {

    record Emit(RunEvent event) implements RunEffect {
    }

    /** What the report says of a node: a decision and/or an outcome (null: unchanged), with its detail. */
    record NodeRecord(String node, Decision decision, Outcome outcome, String detail) implements RunEffect {
    }

    record Observe() implements RunEffect {
    }

    record ObserveLater(Duration delay) implements RunEffect {
    }

    record StartConfigWait() implements RunEffect {
    }

    record Classify() implements RunEffect {
    }

    record StartGates(RolloutPlan plan) implements RunEffect {
    }

    /** @param reread the reboots were decided earlier (auto's wait): their latest state, the deleted ones dropped */
    record Preflight(List<NodeFacts> reboots, List<NodeFacts> leftovers, boolean reread) implements RunEffect {
    }

    record Release(List<NodeFacts> leftovers, RunStep.After then, List<NodeFacts> nodes, RunStep.Waiting next) implements RunEffect {
    }

    record Place(List<NodeFacts> reboots) implements RunEffect {
    }

    record StartRolling(List<NodeFacts> ordered, int budget) implements RunEffect {
    }

    /** Action none or auto: wait for these nodes to turn fresh by themselves. */
    record WaitForFresh(List<NodeFacts> nodes) implements RunEffect {
    }

    record CancelBlocked() implements RunEffect {
    }

    record AbandonInFlight(String why) implements RunEffect {
    }

    record FinalInventory() implements RunEffect {
    }

    record ReportOnly() implements RunEffect {
    }

    record Finish() implements RunEffect {
    }
}
