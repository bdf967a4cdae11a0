package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.rollout.run.NodeEventStage.AfterDecided;
import dev.crifresh.coordinator.rollout.run.NodeEventStage.Settled;
import dev.crifresh.coordinator.rollout.run.NodeEventStage.Update;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Where a node event goes in each state of the run ({@link NodeEventStage}), table-driven: one row per run state. */
class NodeEventStageTest {
    static Stream<Arguments> states() {
        return Stream.of(
                // run state, stage, listens, an update goes to, takes joined, a settled joined node, after a decision
                // (fresh wait empty), after a decision (fresh wait not empty)
                Arguments.of(new RunStep.Locking(), NodeEventStage.STARTING, true, Update.NOBODY, false,
                        Settled.DECIDED_WHEN_ROLLING, AfterDecided.NOTHING, AfterDecided.NOTHING),
                Arguments.of(RunStep.Observing.at(2), NodeEventStage.STARTING, true, Update.NOBODY, false,
                        Settled.DECIDED_WHEN_ROLLING, AfterDecided.NOTHING, AfterDecided.NOTHING),
                Arguments.of(new RunStep.ConfigWait(), NodeEventStage.CONFIG_WAIT, true, Update.CONFIG_WAIT, true,
                        Settled.PLANNED, AfterDecided.NOTHING, AfterDecided.NOTHING),
                Arguments.of(new RunStep.Deciding(), NodeEventStage.DECIDING, true, Update.NOBODY, true,
                        Settled.DECIDED_WHEN_ROLLING, AfterDecided.NOTHING, AfterDecided.NOTHING),
                Arguments.of(new RunStep.Waiting(null, List.of()), NodeEventStage.WAITING, true, Update.FRESH_WAIT, true,
                        Settled.DECIDED_NOW, AfterDecided.END_FRESH_WAIT, AfterDecided.NOTHING),
                Arguments.of(new RunStep.Waiting(List.of(), List.of()), NodeEventStage.WAITING, true, Update.FRESH_WAIT, true,
                        Settled.DECIDED_NOW, AfterDecided.END_FRESH_WAIT, AfterDecided.NOTHING),
                Arguments.of(new RunStep.Rolling(1), NodeEventStage.ROLLING, true, Update.ROLLS, true,
                        Settled.DECIDED_NOW, AfterDecided.PUMP_ROLLS, AfterDecided.PUMP_ROLLS),
                Arguments.of(new RunStep.Done(), NodeEventStage.DONE, false, Update.NOBODY, false,
                        Settled.DROPPED, AfterDecided.NOTHING, AfterDecided.NOTHING));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("states")
    void routesNodeEvents(RunStep.RunState state, NodeEventStage stage, boolean listens, Update update, boolean takesJoined,
                          Settled settled, AfterDecided afterEmpty, AfterDecided afterNotEmpty) {
        NodeEventStage s = NodeEventStage.of(state);
        assertEquals(stage, s);
        assertEquals(listens, s.listens(), "listens");
        assertEquals(update, s.update(), "an update of a classified node");
        assertEquals(takesJoined, s.takesJoined(), "a newcomer is waited for as joined");
        assertEquals(settled, s.settled(true), "a settled joined node still in the cluster");
        assertEquals(Settled.DROPPED, s.settled(false), "a settled joined node that is gone");
        assertEquals(afterEmpty, s.afterDecided(true), "after a decision, the fresh wait empty");
        assertEquals(afterNotEmpty, s.afterDecided(false), "after a decision, nodes left in the fresh wait");
        assertEquals(afterEmpty == AfterDecided.END_FRESH_WAIT, s.endsFreshWait(true), "a deletion ends the empty fresh wait");
        assertFalse(s.endsFreshWait(false), "nodes left: the fresh wait goes on");
    }

    /** A run state added later must get a row above (and a stage), or this fails. */
    @Test
    void theTableHasARowForEveryRunState() {
        Set<Class<?>> inTable = states().map(a -> a.get()[0].getClass()).collect(Collectors.toSet());
        assertEquals(Set.copyOf(OneOfEach.permitted(RunStep.RunState.class)), inTable);
        for (RunStep.RunState state : OneOfEach.of(RunStep.RunState.class, type -> null)) {
            NodeEventStage.of(state);
        }
    }

    @Test
    void aStateWithoutAStageFailsLoudly() {
        assertThrows(IllegalStateException.class, () -> NodeEventStage.of(null));
    }
}
