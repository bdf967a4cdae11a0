package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;

/**
 * What it means that a node was deleted while the run waited for it (pure; {@link RunNodes} carries it out). In the
 * config wait nothing was decided for it yet: it leaves the run, not attempted. In the fresh wait it was told to turn
 * fresh and never proved it: it failed, and so does the run.
 *
 * @param halt the run's halt, or null when the run goes on
 */
record DeletedWhileWaited(Outcome outcome, String detail, RunInput.Halt halt) {
    static DeletedWhileWaited fromConfigWait() {
        return new DeletedWhileWaited(Outcome.DELETED, "the node was deleted during the run", null);
    }

    static DeletedWhileWaited fromFreshWait(String name) {
        return new DeletedWhileWaited(Outcome.FAILED, "the node was deleted while waiting for it to turn fresh",
                new RunInput.Halt(StopReason.NODE_FAILED, name + " was deleted during the run"));
    }
}
