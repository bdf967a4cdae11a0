package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import org.junit.jupiter.api.Test;

/** A node deleted while waited for ({@link DeletedWhileWaited}): not attempted in the config wait, a failure in the fresh wait. */
class DeletedWhileWaitedTest {
    @Test
    void fromTheConfigWaitItLeavesTheRunReportedDeleted() {
        assertEquals(new DeletedWhileWaited(Outcome.DELETED, "the node was deleted during the run", null),
                DeletedWhileWaited.fromConfigWait());
    }

    @Test
    void fromTheFreshWaitItFailsAndHaltsTheRun() {
        assertEquals(new DeletedWhileWaited(Outcome.FAILED, "the node was deleted while waiting for it to turn fresh",
                        new RunInput.Halt(StopReason.NODE_FAILED, "w2 was deleted during the run")),
                DeletedWhileWaited.fromFreshWait("w2"));
    }
}
