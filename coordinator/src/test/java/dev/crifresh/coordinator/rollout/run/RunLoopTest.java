package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The run's loop: answers of a state the run has left are dropped, and no step runs inside another. */
class RunLoopTest {
    private final List<RunEffect> carried = new ArrayList<>();
    private final List<RunStep.Machine> seenWhileCarrying = new ArrayList<>();

    @Test
    void anAnswerForAStateTheRunHasLeftIsDropped() {
        RunLoop loop = new RunLoop(RunStepTest.config(Action.REBOOT), carried::add);
        loop.feed(new RunInput.LockAcquired());
        long observing = loop.machine().epoch();
        loop.answer(observing, new RunInput.Observed(2));
        assertEquals(new RunStep.ConfigWait(), loop.machine().state());
        assertFalse(loop.current(observing));
        carried.clear();
        // The observe backoff's timer of the state left behind fires late: nothing happens.
        loop.answer(observing, new RunInput.ObserveDue());
        loop.answer(observing, new RunInput.ObserveFailed("late", false));
        assertEquals(new RunStep.ConfigWait(), loop.machine().state());
        assertTrue(carried.isEmpty(), carried.toString());
        assertEquals(null, loop.machine().stop());
        // News from the world is always taken.
        loop.feed(new RunInput.Interrupt());
        assertTrue(loop.machine().done());
        long done = loop.machine().epoch();
        carried.clear();
        loop.answer(done, new RunInput.ConfigReady());
        assertTrue(carried.isEmpty(), "a done run takes no answer");
        loop.answer(loop.machine().epoch(), null);
    }

    @Test
    void anInputArrivingWhileEffectsAreCarriedOutWaitsForThem() {
        RunLoop[] loop = new RunLoop[1];
        loop[0] = new RunLoop(RunStepTest.config(Action.REBOOT), effect -> {
            carried.add(effect);
            seenWhileCarrying.add(loop[0].machine());
            if (effect instanceof RunEffect.StartConfigWait) {
                loop[0].feed(new RunInput.ConfigReady()); // no config-pending node: answered at once
            }
        });
        loop[0].feed(new RunInput.LockAcquired());
        loop[0].feed(new RunInput.Observed(1));
        assertEquals(new RunStep.Deciding(), loop[0].machine().state());
        List<Class<?>> kinds = carried.stream().<Class<?>>map(Object::getClass).toList();
        assertEquals(List.of(RunEffect.Observe.class, RunEffect.StartConfigWait.class, RunEffect.Classify.class), kinds);
        assertEquals(new RunStep.ConfigWait(), seenWhileCarrying.get(1).state(), "the nested input waited for its turn");
    }
}
