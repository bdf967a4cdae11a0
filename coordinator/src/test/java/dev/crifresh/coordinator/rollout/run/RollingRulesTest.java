package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEnd;
import dev.crifresh.coordinator.rollout.run.RollingRules.AfterEnd;
import dev.crifresh.coordinator.rollout.run.RollingRules.AfterPump;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rolling phase's decisions, every case: after a pump (idle, blocked, rolling) and after each kind of roll end. */
class RollingRulesTest {
    @ParameterizedTest(name = "stopping={0} noneInFlight={1} queueEmpty={2} -> {3}")
    @CsvSource({
            // nothing in flight: idle once nothing waits or the run stops, else blocked (the timer runs)
            "false, true,  true,  IDLE",
            "false, true,  false, BLOCKED",
            "true,  true,  true,  IDLE",
            "true,  true,  false, IDLE",
            // something in flight: its end pumps again, whatever waits and whether the run stops
            "false, false, true,  ROLLING",
            "false, false, false, ROLLING",
            "true,  false, true,  ROLLING",
            "true,  false, false, ROLLING"})
    void afterAPump(boolean stopping, boolean noneInFlight, boolean queueEmpty, AfterPump expected) {
        assertEquals(expected, RollingRules.afterPump(stopping, noneInFlight, queueEmpty));
    }

    @Test
    void aRebootedNodeIsUntaintedBeforeTheNextStartsAndStopsNothing() {
        AfterEnd after = RollingRules.afterEnd("w1", new NodeEnd.Rebooted("fresh"), true);
        assertEquals(new AfterEnd(null, false, true), after);
    }

    @Test
    void aRecordNeverCarriedOutIsRolledAgainWhileTheNodeIsThere() {
        NodeEnd end = new NodeEnd.NotCarriedOut("the recorded reboot was never sent");
        assertEquals(new AfterEnd(null, true, false), RollingRules.afterEnd("w1", end, true));
        assertEquals(new AfterEnd(null, false, false), RollingRules.afterEnd("w1", end, false), "a deleted node is not rolled again");
    }

    @Test
    void aFailedNodeHaltsTheRunNamingTheNode() {
        AfterEnd after = RollingRules.afterEnd("w1", new NodeEnd.NotTouched("gates refused"), true);
        assertEquals(new RunInput.Halt(new NodeEnd.NotTouched("x").stops(), "w1: gates refused"), after.halt());
        assertFalse(after.rollAgain());
        assertFalse(after.untaintFirst());
    }

    @Test
    void aFailureBecauseTheNodeWasDeletedStopsNothingAndIsReportedDeleted() {
        NodeEnd failed = new NodeEnd.RolledBack("the claim was refused: the node was deleted", Outcome.FAILED);
        assertNull(RollingRules.afterEnd("w1", failed, false).halt(), "a scale-down took its containerd with it");
        assertEquals("the node was deleted during its rollout (the claim was refused: the node was deleted)",
                RollingRules.deleted(failed, false));
        assertNull(RollingRules.deleted(failed, true), "still there: a real failure");
        assertNull(RollingRules.deleted(new NodeEnd.Deleted("gone"), false), "already says so");
        assertNull(RollingRules.deleted(new NodeEnd.Rebooted("fresh"), false));
    }

    /** Every permitted kind of end: the halt is the end's own stop, only a rebooted node is untainted first. */
    @Test
    void everyKindOfEnd() {
        List<NodeEnd> ends = OneOfEach.of(NodeEnd.class, type -> type == String.class ? "why"
                : type == Outcome.class ? Outcome.FAILED : type == boolean.class ? Boolean.TRUE : null);
        assertEquals(NodeEnd.class.getPermittedSubclasses().length, ends.size());
        for (NodeEnd end : ends) {
            AfterEnd after = RollingRules.afterEnd("w1", end, true);
            String kind = end.getClass().getSimpleName();
            if (end.stops() == null) {
                assertNull(after.halt(), kind);
            } else {
                assertEquals(new RunInput.Halt(end.stops(), "w1: " + end.why()), after.halt(), kind);
            }
            assertEquals(end instanceof NodeEnd.NotCarriedOut, after.rollAgain(), kind);
            assertEquals(end.outcome() == Outcome.REBOOTED, after.untaintFirst(), kind);
        }
    }
}
