package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.NoAttestations;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.plan.RolloutPlanTest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The run's pure step: every step and every way a run stops, without Vert.x, a cluster or time. */
class RunStepTest {
    private static final RunStep.Config REBOOT = config(Action.REBOOT);

    static RunStep.Config config(Action action) {
        return new RunStep.Config(action, Duration.ofSeconds(30), Duration.ofSeconds(45), Duration.ofSeconds(90), "registry.example");
    }

    static RunStep.Machine in(RunStep.RunState state) {
        return new RunStep.Machine(7, state, null);
    }

    static RunStep.Machine stopped(RunStep.RunState state) {
        return new RunStep.Machine(7, state, new RunStep.Stop(StopReason.NODE_FAILED, "earlier"));
    }

    static <T extends RunEffect> List<T> effects(RunStep.Step step, Class<T> type) {
        return step.effects().stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends RunEffect> T effect(RunStep.Step step, Class<T> type) {
        List<T> all = effects(step, type);
        assertEquals(1, all.size(), type.getSimpleName() + " in " + step.effects());
        return all.get(0);
    }

    static NodeFacts node(String name) {
        return RolloutPlanTest.facts(name, Role.WORKER, null, null, false);
    }

    /** Each input that stops the run: the state it arrives in, the stop reason and text, whether the run finishes. */
    static Stream<Arguments> stops() {
        Map<String, String> pending = new LinkedHashMap<>(Map.of("w1", "no credential"));
        return Stream.of(
                Arguments.of(new RunStep.Locking(), new RunInput.LockNotAcquired("held by x"), StopReason.LOCK_NOT_ACQUIRED, "held by x", false),
                Arguments.of(new RunStep.Rolling(2), new RunInput.LockLost("taken over"), StopReason.LOCK_LOST, "taken over", true),
                Arguments.of(new RunStep.Locking(), new RunInput.Interrupt(), StopReason.INTERRUPTED, "interrupted", false),
                Arguments.of(new RunStep.Rolling(2), new RunInput.Interrupt(), StopReason.INTERRUPTED, "interrupted", true),
                Arguments.of(RunStep.Observing.at(3), new RunInput.ObserveFailed("403 forbidden", false), StopReason.NODE_FAILED,
                        "cannot watch nodes: 403 forbidden", true),
                Arguments.of(new RunStep.ConfigWait(), new RunInput.ConfigTimedOut(pending), StopReason.TIMED_OUT,
                        "1 node(s) did not hold the desired credential for registry.example within 30s: w1; nothing was rebooted", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.PlanFailed("boom"), StopReason.NODE_FAILED, "cannot classify the nodes: boom", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.ProofsFailed(Map.of("f1", "pull denied"), null), StopReason.NODE_FAILED,
                        "f1 attest fresh but failed the pull proof (pull denied); nothing was rebooted", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.ProofsFailed(Map.of(), "timeout"), StopReason.NODE_FAILED,
                        "the pull proof could not run: timeout", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.NoAttestationsFound(new NoAttestations(2,
                                Map.of("no ContainerdConfigFresh condition", 2), "w1: there is no attestation")), StopReason.NO_ATTESTATIONS,
                        "no selected node carries a verifiable attestation of its current boot (2 nodes): 2 with no ContainerdConfigFresh"
                                + " condition — e.g. w1: there is no attestation. The installation, not the nodes, is the likely cause"
                                + " (docs/install.md); no node was touched. To reboot every selected node anyway, as without crifresh,"
                                + " pass --allow-no-attestations", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.PreflightRefused(Map.of("cp1", "it serves the API")), StopReason.NODE_FAILED,
                        "refused to reboot cp1: it serves the API; no node was touched", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.Prechecked(List.of(), List.of(), Map.of("w1", "no InternalIP"), List.of("w1")),
                        StopReason.NODE_FAILED, "the reboot driver cannot reboot w1: no InternalIP; no node was touched", true),
                Arguments.of(new RunStep.Deciding(), new RunInput.Released(RunStep.After.PLACE, List.of(), null, "500"), StopReason.NODE_FAILED,
                        "could not release an earlier run's leftover nodes: 500", true),
                Arguments.of(new RunStep.Waiting(null, List.of()), new RunInput.FreshTimedOut(pending), StopReason.TIMED_OUT,
                        "1 node(s) did not attest fresh within 45s: w1", true),
                Arguments.of(new RunStep.Rolling(2), new RunInput.Halt(StopReason.NODE_FAILED, "w1: drain timed out"), StopReason.NODE_FAILED,
                        "w1: drain timed out", false),
                Arguments.of(new RunStep.Rolling(2), new RunInput.Blocked("w2 waits: budget used up"), StopReason.TIMED_OUT,
                        "no node could start for 90s: w2 waits: budget used up", false),
                Arguments.of(new RunStep.Rolling(2), new RunInput.InventoryFailed("503"), StopReason.NODE_FAILED,
                        "the final inventory read failed: 503", true));
    }

    @ParameterizedTest(name = "{0} + {1} → {2}")
    @MethodSource("stops")
    void everyStopReasonComesFromOneInput(RunStep.RunState state, RunInput input, StopReason reason, String why, boolean finishes) {
        RunStep.Step step = RunStep.next(REBOOT, in(state), input);
        assertEquals(new RunStep.Stop(reason, why), step.run().stop());
        assertEquals(finishes, step.run().done());
        assertEquals(finishes ? 1 : 0, effects(step, RunEffect.Finish.class).size());
        RunEvent.Stopping stopping = (RunEvent.Stopping) effects(step, RunEffect.Emit.class).stream().map(RunEffect.Emit::event)
                .filter(RunEvent.Stopping.class::isInstance).findFirst().orElseThrow();
        assertEquals(state instanceof RunStep.Rolling, stopping.rolling(), "'; no new reboots' only while rolling");
        assertEquals(1, effects(step, RunEffect.CancelBlocked.class).size());
    }

    @Test
    void theFirstStopWinsAndADoneRunIgnoresEverything() {
        RunStep.Step later = RunStep.next(REBOOT, stopped(new RunStep.Rolling(1)), new RunInput.Halt(StopReason.TIMED_OUT, "later"));
        assertEquals("earlier", later.run().stop().why());
        assertTrue(effects(later, RunEffect.Emit.class).isEmpty(), "no second 'stopping' line");
        RunStep.Machine done = in(new RunStep.Done());
        for (RunInput input : List.of(new RunInput.LockLost("x"), new RunInput.Interrupt(), new RunInput.Idle(), new RunInput.ConfigReady())) {
            RunStep.Step step = RunStep.next(REBOOT, done, input);
            assertEquals(done, step.run());
            assertTrue(step.effects().isEmpty());
        }
    }

    @Test
    void lockThenObserveWithBackoffThenConfigWaitThenDecide() {
        RunStep.Step locked = RunStep.next(REBOOT, RunStep.Machine.start(), new RunInput.LockAcquired());
        assertEquals(RunStep.Observing.at(1), locked.run().state());
        assertEquals(1, locked.run().epoch(), "a new kind of state: answers to the old one are stale");
        effect(locked, RunEffect.Observe.class);
        RunStep.Machine run = locked.run();
        List<Long> delays = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RunStep.Step retry = RunStep.next(REBOOT, run, new RunInput.ObserveFailed("503", true));
            delays.add(effect(retry, RunEffect.ObserveLater.class).delay().toMillis());
            assertEquals(run.epoch(), retry.run().epoch(), "the same state, retried");
            run = retry.run();
            effect(RunStep.next(REBOOT, run, new RunInput.ObserveDue()), RunEffect.Observe.class);
        }
        assertEquals(List.of(500L, 1000L, 2000L, 4000L, 5000L, 5000L), delays);
        RunStep.Step observed = RunStep.next(REBOOT, run, new RunInput.Observed(3));
        assertEquals(new RunStep.ConfigWait(), observed.run().state());
        effect(observed, RunEffect.StartConfigWait.class);
        RunStep.Step ready = RunStep.next(REBOOT, observed.run(), new RunInput.ConfigReady());
        assertEquals(new RunStep.Deciding(), ready.run().state());
        effect(ready, RunEffect.Classify.class);
        assertTrue(RunStep.next(REBOOT, in(new RunStep.ConfigWait()), new RunInput.ObserveDue()).effects().isEmpty(),
                "a backoff timer of a state left behind does nothing");
        for (RunInput late : List.of(new RunInput.ConfigReady(), new RunInput.ConfigTimedOut(Map.of("w1", "x")),
                new RunInput.FreshTimedOut(Map.of("w1", "x")), new RunInput.FreshWaitEnded())) {
            RunStep.Step step = RunStep.next(REBOOT, in(new RunStep.Rolling(1)), late);
            assertEquals(in(new RunStep.Rolling(1)), step.run(), "a wait's news after the wait: " + late);
            assertTrue(step.effects().isEmpty());
        }
    }

    @Test
    void aStoppedRunFinishesInsteadOfGoingOn() {
        assertTrue(RunStep.next(REBOOT, stopped(RunStep.Observing.at(1)), new RunInput.Observed(1)).run().done());
        assertTrue(RunStep.next(REBOOT, stopped(new RunStep.ConfigWait()), new RunInput.ConfigReady()).run().done());
        assertTrue(RunStep.next(REBOOT, stopped(new RunStep.Rolling(1)), new RunInput.Idle()).run().done());
        assertTrue(RunStep.next(REBOOT, stopped(new RunStep.Waiting(List.of(node("w1")), List.of())), new RunInput.FreshWaitEnded()).run().done());
        assertFalse(RunStep.next(REBOOT, stopped(new RunStep.Locking()), new RunInput.Interrupt()).run().done(),
                "while taking the Lease the keeper answers first (lockAbandoned)");
        assertTrue(RunStep.next(REBOOT, stopped(new RunStep.Locking()), new RunInput.LockAbandoned()).run().done());
        assertTrue(RunStep.next(REBOOT, stopped(new RunStep.Locking()), new RunInput.Reported()).run().done());
    }

    @Test
    void theConfigTimeoutRecordsEveryPendingNode() {
        Map<String, String> pending = new LinkedHashMap<>();
        pending.put("w1", "no credential");
        pending.put("w2", "old credential");
        List<RunEffect.NodeRecord> records = effects(RunStep.next(REBOOT, in(new RunStep.ConfigWait()), new RunInput.ConfigTimedOut(pending)),
                RunEffect.NodeRecord.class);
        assertEquals(List.of(new RunEffect.NodeRecord("w1", Decision.WAIT, Outcome.FAILED, "config did not hold the desired credential within 30s: no credential"),
                new RunEffect.NodeRecord("w2", Decision.WAIT, Outcome.FAILED, "config did not hold the desired credential within 30s: old credential")), records);
    }

    private static RolloutPlan plan(Action action, NodeFacts... stale) {
        List<dev.crifresh.coordinator.classify.Classification> all = Stream.of(stale)
                .map(f -> RolloutPlanTest.classified(f, NodeVerdict.STALE)).toList();
        Map<String, NodeFacts> byName = new LinkedHashMap<>();
        Stream.of(stale).forEach(f -> byName.put(f.name(), f));
        return RolloutPlan.decide(action, all, Map.of(), byName::get);
    }

    @Test
    void thePlanIsRecordedAndAnnouncedWithAutoThenTheGatesStart() {
        NodeFacts w1 = RolloutPlanTest.facts("w1", Role.WORKER, null, "Talos (v1.13.4)", false);
        RolloutPlan plan = plan(Action.AUTO, w1);
        RunStep.Step step = RunStep.next(config(Action.AUTO), in(new RunStep.Deciding()), new RunInput.Planned(plan));
        assertEquals(List.of(new RunEffect.NodeRecord("w1", Decision.REBOOT, null, null)), effects(step, RunEffect.NodeRecord.class));
        assertInstanceOf(RunEvent.NodeDecided.class, effect(step, RunEffect.Emit.class).event());
        assertEquals(plan, effect(step, RunEffect.StartGates.class).plan());
        assertTrue(effects(RunStep.next(REBOOT, in(new RunStep.Deciding()), new RunInput.Planned(plan(Action.REBOOT, w1))), RunEffect.Emit.class)
                .isEmpty(), "only auto announces a node's action");
    }

    @Test
    void afterTheGatesRebootChecksActionNoneWaitsAndAutoWaitsThenReboots() {
        NodeFacts old = RolloutPlanTest.facts("old", Role.WORKER, "x/draining", "Talos (v1.13.4)", false);
        NodeFacts restarts = RolloutPlanTest.facts("new", Role.WORKER, null, "Talos (v1.14.1)", false);
        RunStep.Step reboot = RunStep.next(REBOOT, in(new RunStep.Deciding()), new RunInput.GatesPassed(plan(Action.REBOOT, old)));
        assertEquals(new RunEffect.Preflight(List.of(old), List.of(old), false), effect(reboot, RunEffect.Preflight.class));

        RunStep.Step none = RunStep.next(config(Action.NONE), in(new RunStep.Deciding()), new RunInput.GatesPassed(plan(Action.NONE, old)));
        RunEffect.Release release = effect(none, RunEffect.Release.class);
        assertEquals(RunStep.After.WAIT_FRESH, release.then());
        assertNull(release.next().reboots(), "action none: nothing follows the wait");
        assertEquals(new RunStep.Deciding(), none.run().state(), "waiting starts once the leftovers are released");

        RunStep.Step auto = RunStep.next(config(Action.AUTO), in(new RunStep.Deciding()), new RunInput.GatesPassed(plan(Action.AUTO, old, restarts)));
        RunEffect.Release first = effect(auto, RunEffect.Release.class);
        assertEquals(List.of(), first.leftovers(), "the leftover is rebooted, released only after the wait");
        assertEquals(List.of(restarts), first.nodes());
        assertEquals(new RunStep.Waiting(List.of(old), List.of(old)), first.next());

        RunStep.Step waiting = RunStep.next(config(Action.AUTO), in(new RunStep.Deciding()),
                new RunInput.Released(RunStep.After.WAIT_FRESH, first.nodes(), first.next(), null));
        assertEquals(first.next(), waiting.run().state());
        assertEquals(8, waiting.run().epoch());
        assertEquals(List.of(restarts), effect(waiting, RunEffect.WaitForFresh.class).nodes());

        NodeFacts joined = node("joined");
        RunStep.Step join = RunStep.next(config(Action.AUTO), waiting.run(), new RunInput.JoinedAfterWait(joined));
        assertEquals(new RunStep.Waiting(List.of(old, joined), List.of(old)), join.run().state());
        assertEquals(8, join.run().epoch(), "the same wait: its answers still count");

        RunStep.Step ended = RunStep.next(config(Action.AUTO), join.run(), new RunInput.FreshWaitEnded());
        assertEquals(new RunStep.Deciding(), ended.run().state());
        assertEquals(new RunEffect.Preflight(List.of(old, joined), List.of(old), true), effect(ended, RunEffect.Preflight.class));
        assertEquals(RunEffect.FinalInventory.class, RunStep.next(config(Action.NONE), in(new RunStep.Waiting(null, List.of())),
                new RunInput.FreshWaitEnded()).effects().get(0).getClass(), "action none: the wait over, the inventory");
    }

    @Test
    void preflightThenReleaseThenPlaceThenRoll() {
        NodeFacts w1 = node("w1");
        RunStep.Step checked = RunStep.next(REBOOT, in(new RunStep.Deciding()),
                new RunInput.Prechecked(List.of(w1), List.of(), Map.of(), List.of("w1")));
        assertEquals(new RunEffect.Release(List.of(), RunStep.After.PLACE, List.of(w1), null), effect(checked, RunEffect.Release.class));
        RunStep.Step released = RunStep.next(REBOOT, checked.run(), new RunInput.Released(RunStep.After.PLACE, List.of(w1), null, null));
        assertEquals(List.of(w1), effect(released, RunEffect.Place.class).reboots());
        RunStep.Step placed = RunStep.next(REBOOT, released.run(), new RunInput.Placed(List.of(w1), 2));
        assertEquals(new RunStep.Rolling(2), placed.run().state());
        assertEquals(new RunEffect.StartRolling(List.of(w1), 2), effect(placed, RunEffect.StartRolling.class));
        RunStep.Step idle = RunStep.next(REBOOT, placed.run(), new RunInput.Idle());
        effect(idle, RunEffect.FinalInventory.class);
        RunStep.Step done = RunStep.next(REBOOT, idle.run(), new RunInput.InventoryDone(4));
        assertTrue(done.run().done());
        assertNull(done.run().stop(), "completed");
        assertEquals(new RunEvent.InventoryDone(4), effect(done, RunEffect.Emit.class).event());
    }

    @Test
    void aDriverProblemIsRecordedOnlyForNodesInTheReport() {
        RunStep.Step step = RunStep.next(REBOOT, in(new RunStep.Deciding()), new RunInput.Prechecked(List.of(), List.of(),
                new LinkedHashMap<>(Map.of("*", "driver broken")), List.of("w1")));
        assertTrue(effects(step, RunEffect.NodeRecord.class).isEmpty());
        assertEquals("the reboot driver cannot reboot *: driver broken; no node was touched", step.run().stop().why());
    }
}
