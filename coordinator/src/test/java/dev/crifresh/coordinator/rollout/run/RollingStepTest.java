package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEnd;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.RollStarts.Slot;
import dev.crifresh.coordinator.rollout.run.RollingEffect.*;
import dev.crifresh.coordinator.rollout.run.RollingStep.Step;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rolling phase's pure steps ({@link RollingStep}) over its state ({@link RollingState}), in milliseconds: the
 * queue and the flight, what a pump starts and drops, the blocked timer's arming, cancelling and firing, and what each
 * kind of roll end leads to. Every {@link RollingEffect} type is produced by some step here, and each reaches its own
 * handler method.
 */
class RollingStepTest {
    private static final Duration LIMIT = Duration.ofMinutes(10);

    // ---- the state ----------------------------------------------------------------------------------------------

    @Test
    void aWorkerQueuesBeforeEveryQueuedControlPlaneAndAfterTheWorkersQueuedBefore() {
        RollingState s = RollingState.idle().begun(2, 4).queued(slot("cp1")).queued(slot("w1")).queued(slot("cp2"))
                .queued(slot("w2"));
        assertEquals(List.of("w1", "w2", "cp1", "cp2"), names(s.queue()));
        RollingState joined = s.joined(slot("w3"));
        assertEquals(5, joined.total(), "a joined node is the last roll's index");
        assertEquals(List.of("w1", "w2", "w3", "cp1", "cp2"), names(joined.queue()));
    }

    @Test
    void aStartMovesTheRollFromTheQueueToTheFlightWithItsRole() {
        RollingState s = RollingState.idle().queued(slot("w1")).queued(slot("cp1")).started("cp1").started("w1");
        assertEquals(List.of(), s.queue());
        assertEquals(List.of("cp1", "w1"), List.copyOf(s.inFlight().keySet()), "in the order started");
        assertEquals(Role.CONTROL_PLANE, s.inFlight().get("cp1"));
        assertEquals(Map.of("w1", Role.WORKER), s.ended("cp1").inFlight());
        assertEquals(Map.of(), s.noneInFlight().inFlight());
        assertEquals(List.of(), RollingState.idle().queued(slot("w1")).dropped("w1").queue());
    }

    @Test
    void startingOrDroppingANodeThatIsNotQueuedFailsLoudly() {
        RollingState s = RollingState.idle().queued(slot("w1"));
        assertThrows(IllegalStateException.class, () -> s.started("w2"));
        assertThrows(IllegalStateException.class, () -> s.dropped("w2"));
    }

    @Test
    void theStateIsAValue() {
        List<Slot> queue = new ArrayList<>(List.of(slot("w1")));
        RollingState s = new RollingState(1, 1, queue, Map.of(), null, null, false, 0);
        queue.add(slot("w2"));
        assertEquals(List.of("w1"), names(s.queue()), "a copy of the queue it was given");
        assertEquals(1, s.untainting(1).untaintsPending());
        assertEquals(0, s.untainting(1).untainting(-1).untaintsPending());
    }

    // ---- a pump: starts ----------------------------------------------------------------------------------------

    @Test
    void aPumpStartsWhatFitsAndSaysWhyTheNextWaits() {
        RollingState s = RollingState.idle().begun(1, 2).queued(slot("w1")).queued(slot("w2"));
        Step step = RollingStep.starts(s, cluster("w1", "w2"), List.copyOf(all("w1", "w2").values()), false);
        assertEquals(List.of(new StartRoll("w1")), step.effects());
        assertEquals("w2 waits: max-unavailable budget of 1 is used by w1 (in progress)", step.state().blockedBecause());
        assertEquals(names(s.queue()), names(step.state().queue()), "a start is recorded as it is carried out");
    }

    @Test
    void aDeletedQueuedNodeIsDroppedAndReportedDeletedAfterTheMoves() {
        RollingState s = RollingState.idle().begun(1, 2).queued(slot("w1")).queued(slot("w2"));
        Step step = RollingStep.starts(s, cluster("w2"), List.copyOf(all("w2").values()), false);
        assertEquals(List.of(new DropRoll("w1"), new StartRoll("w2"), new Deleted("w1", RollingStep.DROPPED)), step.effects());
        assertNull(step.state().blockedBecause());
    }

    @Test
    void theSeedStartsAloneWhileItLastsAndIsForgottenOnceOver() {
        RollingState s = RollingState.idle().begun(3, 2).queued(slot("w1")).queued(slot("w2")).seeded("w2");
        Step lasting = RollingStep.starts(s, cluster("w1", "w2"), List.copyOf(all("w1", "w2").values()), true);
        assertEquals(List.of(new StartRoll("w2")), lasting.effects());
        assertEquals("w2", lasting.state().seed());
        Step over = RollingStep.starts(s, cluster("w1", "w2"), List.copyOf(all("w1", "w2").values()), false);
        assertEquals(List.of(new StartRoll("w1"), new StartRoll("w2")), over.effects());
        assertNull(over.state().seed());
    }

    // ---- a pump: settle, and the blocked timer ------------------------------------------------------------------

    @ParameterizedTest(name = "stopping={0} inFlight={1} queued={2} armed={3} because={4} -> {5}")
    @CsvSource(nullValues = "null", value = {
            // nothing in flight, nothing waits (or the run stops): idle; an armed timer is left to find nothing
            "false, false, false, false, null, Feed, false",
            "true,  false, true,  false, null, Feed, false",
            "true,  false, true,  true,  null, Feed, true",
            // nothing in flight, nodes wait: the timer is set once, saying why when there is a why
            "false, false, true,  false, w2 waits, Emit ArmBlocked, true",
            "false, false, true,  false, null, ArmBlocked, true",
            "false, false, true,  true,  w2 waits, '', true",
            // something in flight: its end pumps again; a set timer is cancelled
            "false, true,  true,  true,  null, CancelBlocked, false",
            "false, true,  false, false, null, '', false",
            "true,  true,  true,  true,  null, CancelBlocked, false"})
    void settles(boolean stopping, boolean flying, boolean queued, boolean armed, String because, String effects,
                 boolean armedAfter) {
        RollingState s = RollingState.idle().begun(1, 2).queued(slot("w1")).queued(slot("w2"));
        s = flying ? s.started("w1") : s.dropped("w1");
        s = (queued ? s : s.dropped("w2")).armed(armed).blocked(because);
        Step step = RollingStep.settle(s, stopping, LIMIT);
        assertEquals(effects, kinds(step.effects()));
        assertEquals(armedAfter, step.state().blockedArmed());
        if (effects.contains("ArmBlocked")) {
            assertTrue(step.effects().contains(new ArmBlocked(LIMIT)));
        }
        if (effects.contains("Emit")) {
            assertEquals(new Emit(new RunEvent.Blocked(because)), step.effects().get(0));
        }
        if (effects.equals("Feed")) {
            assertEquals(new Feed(new RunInput.Idle()), step.effects().get(0));
        }
    }

    @ParameterizedTest(name = "rolling={0} stopping={1} inFlight={2} because={3} -> {4}")
    @CsvSource(nullValues = "null", value = {
            // still blocked: the run is told, with the last pump's why (or just "blocked"), and pumps
            "true,  false, false, w2 waits, w2 waits",
            "true,  false, false, null, blocked",
            // the run left its roll step, stops, or something started since: nothing
            "false, false, false, w2 waits, null",
            "true,  true,  false, w2 waits, null",
            "true,  false, true,  w2 waits, null"})
    void theBlockedTimerFires(boolean rolling, boolean stopping, boolean flying, String because, String told) {
        RollingState s = RollingState.idle().begun(1, 2).queued(slot("w1")).queued(slot("w2"));
        s = (flying ? s.started("w1") : s).armed(true).blocked(because);
        Step step = RollingStep.blockedFired(s, rolling, stopping);
        assertFalse(step.state().blockedArmed(), "a fired timer is set no more");
        assertEquals(told == null ? List.of() : List.of(new Feed(new RunInput.Blocked(told)), new Pump()), step.effects());
    }

    @Test
    void cancellingTheBlockedTimerOnlyActsWhenItIsSet() {
        RollingState armed = RollingState.idle().armed(true);
        assertEquals(new Step(RollingState.idle(), List.of(new CancelBlocked())), RollingStep.cancelBlocked(armed));
        assertEquals(new Step(RollingState.idle(), List.of()), RollingStep.cancelBlocked(RollingState.idle()));
    }

    // ---- a roll's end --------------------------------------------------------------------------------------------

    @Test
    void aRebootedNodeIsUntaintedBeforeTheNextStarts() {
        assertEquals(List.of(new Untaint("w1")), RollingStep.ended("w1", new NodeEnd.Rebooted("fresh"), facts("w1")));
    }

    @Test
    void aRecordNeverCarriedOutIsRolledAgainWithWhyThenTheNextPumpIsQueued() {
        NodeFacts again = facts("w1");
        NodeEnd end = new NodeEnd.NotCarriedOut("the recorded reboot was never sent");
        assertEquals(List.of(new RollAgain(again, "the recorded reboot was never sent"), new PumpLater()),
                RollingStep.ended("w1", end, again));
        assertEquals(List.of(new PumpLater()), RollingStep.ended("w1", end, null), "a deleted node is not rolled again");
    }

    @Test
    void aFailedNodeHaltsTheRunAndAFailureBecauseItWasDeletedIsReportedDeleted() {
        NodeEnd failed = new NodeEnd.NotTouched("gates refused");
        assertEquals(List.of(new Feed(new RunInput.Halt(failed.stops(), "w1: gates refused")), new PumpLater()),
                RollingStep.ended("w1", failed, facts("w1")));
        NodeEnd gone = new NodeEnd.RolledBack("the claim was refused: the node was deleted", Outcome.FAILED);
        assertEquals(List.of(new Deleted("w1", "the node was deleted during its rollout (the claim was refused: the node was deleted)"),
                new PumpLater()), RollingStep.ended("w1", gone, null));
    }

    // ---- every effect type --------------------------------------------------------------------------------------

    @Test
    void everyEffectTypeIsProducedBySomeStep() {
        Set<Class<?>> seen = new HashSet<>();
        RollingState q = RollingState.idle().begun(1, 2).queued(slot("w1")).queued(slot("w2"));
        RollingStep.starts(q, cluster("w2"), List.copyOf(all("w2").values()), false).effects().forEach(e -> seen.add(e.getClass()));
        RollingStep.settle(q.blocked("why"), false, LIMIT).effects().forEach(e -> seen.add(e.getClass()));
        RollingStep.settle(q.started("w1").armed(true), false, LIMIT).effects().forEach(e -> seen.add(e.getClass()));
        RollingStep.blockedFired(q.armed(true), true, false).effects().forEach(e -> seen.add(e.getClass()));
        RollingStep.ended("w1", new NodeEnd.NotCarriedOut("x"), facts("w1")).forEach(e -> seen.add(e.getClass()));
        RollingStep.ended("w1", new NodeEnd.Rebooted("x"), facts("w1")).forEach(e -> seen.add(e.getClass()));
        assertEquals(Set.copyOf(OneOfEach.permitted(RollingEffect.class)), seen);
    }

    @Test
    void everyEffectTypeReachesItsOwnHandlerMethod() {
        OneOfEach.assertEachReachesItsOwnMethod(RollingEffect.class, RollingEffect.Handler.class, type -> null,
                RollingEffect::dispatch);
    }

    @Test
    void aNullEffectFailsLoudly() {
        assertThrows(IllegalStateException.class, () -> RollingEffect.dispatch(null, null));
    }

    // ---- fixture --------------------------------------------------------------------------------------------------

    private static Slot slot(String name) {
        return new Slot(name, name.startsWith("cp") ? Role.CONTROL_PLANE : Role.WORKER);
    }

    private static List<String> names(List<Slot> slots) {
        return slots.stream().map(Slot::name).toList();
    }

    private static String kinds(List<RollingEffect> effects) {
        return String.join(" ", effects.stream().map(e -> e.getClass().getSimpleName()).toList());
    }

    private static Map<String, NodeFacts> all(String... names) {
        Map<String, NodeFacts> out = new LinkedHashMap<>();
        for (String n : names) {
            out.put(n, facts(n));
        }
        return out;
    }

    private static Function<String, NodeFacts> cluster(String... names) {
        return all(names)::get;
    }

    private static NodeFacts facts(String name) {
        return NodeFacts.of(new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(name.startsWith("cp") ? Map.of(Role.CONTROL_PLANE_LABEL, "") : Map.of()).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build());
    }
}
