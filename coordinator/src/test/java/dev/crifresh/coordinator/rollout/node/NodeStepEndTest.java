package dev.crifresh.coordinator.rollout.node;

import static dev.crifresh.coordinator.rollout.node.NodeStepFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Abandoning a node's roll, and every way it ends, on the pure step alone. */
class NodeStepEndTest {
    // ---- abandon, and what a finished roll ignores -------------------------------------------------------------

    static Stream<Arguments> abandoned() {
        Function<String, NodeState> queued = x -> NodeStep.start(roll(null));
        return Stream.of(
                Arguments.of(queued, Outcome.NOT_ATTEMPTED, "interrupted"),
                Arguments.of((Function<String, NodeState>) x -> NodeStep.next(drained(), new Failed("x")).state(), Outcome.FAILED,
                        "interrupted while releasing; a rerun resumes from crifresh.dev/rollout"),
                Arguments.of((Function<String, NodeState>) x -> returning(), Outcome.FAILED,
                        "interrupted while returning; a rerun resumes from crifresh.dev/rollout"));
    }

    @ParameterizedTest
    @MethodSource("abandoned")
    void abandonLeavesTheNodeAsItIs(Function<String, NodeState> from, Outcome outcome, String why) {
        NodeStep.Step s = NodeStep.next(from.apply(""), new Abandon("interrupted"));
        NodeEnd end = end(s);
        assertEquals(new NodeEnd.Abandoned(why, outcome), end);
        assertNull(end.stops());
        assertFalse(has(s, Finish.class), "the run abandoned it: it is not told again");
        assertEquals(s.state(), NodeStep.next(s.state(), new TimerFired()).state());
    }

    @Test
    void abandonedWhileReleasingARebootedNodeIsRebootedButCordoned() {
        NodeFacts fresh = attested("boot-2", "m2");
        NodeState rel = run(attesting(), new Classified(fresh, classified(fresh, NodeVerdict.FRESH)),
                new GateAnswered(GateVerdict.passed(""), null, false)).state();
        NodeEnd end = end(NodeStep.next(rel, new Abandon("the rollout lock was lost")));
        assertEquals(Outcome.REBOOTED, end.outcome());
        assertTrue(end.why().endsWith("; but NOT uncordoned: the rollout lock was lost; a rerun releases it"), end.why());
    }

    static Stream<Arguments> endKinds() {
        return Stream.of(
                Arguments.of(new NodeEnd.Rebooted("w"), Outcome.REBOOTED, null),
                Arguments.of(new NodeEnd.NotStarted("w"), Outcome.NOT_ATTEMPTED, null),
                Arguments.of(new NodeEnd.TimedOut("w"), Outcome.NOT_ATTEMPTED, StopReason.TIMED_OUT),
                Arguments.of(new NodeEnd.NotTouched("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.RolledBack("w", Outcome.FAILED), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.RolledBack("w", Outcome.NOT_ATTEMPTED), Outcome.NOT_ATTEMPTED, null),
                Arguments.of(new NodeEnd.MayHaveRebooted("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Untellable("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ResumedStillStale("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Deleted("w"), Outcome.DELETED, null),
                Arguments.of(new NodeEnd.ProofFailed("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ReleaseFailed("w", true), Outcome.REBOOTED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ReleaseFailed("w", false), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Abandoned("w", Outcome.FAILED), Outcome.FAILED, null));
    }

    /** The report's outcome and the run's stop derive from how the roll ended, and each kind says what a rerun does. */
    @ParameterizedTest
    @MethodSource("endKinds")
    void eachEndSaysItsOutcomeWhetherTheRunStopsAndWhatARerunDoes(NodeEnd end, Outcome outcome, StopReason stops) {
        assertEquals(outcome, end.outcome());
        assertEquals(stops, end.stops());
        assertFalse(end.rerun().isBlank());
    }

    @Test
    void everyFailureIsReportedAsAnEventOnce() {
        NodeStep.Step s = NodeStep.next(returning(), new TimerFired());
        assertEquals(List.of(EventReason.FAILED), events(s));
        assertEquals(Role.WORKER, s.state().roll().startedAs().role());
    }
}
