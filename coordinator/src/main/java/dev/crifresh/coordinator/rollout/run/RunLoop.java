package dev.crifresh.coordinator.rollout.run;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Drives a run's {@link RunStep}: each input gives the next run and its effects, carried out in order. An input that
 * arrives while the effects of a step are being carried out (an effect that answers at once) is queued and taken
 * after them, so no step runs inside another. An effect's answer carries the epoch of the state that asked for it:
 * {@link #answer} drops it when the run has left that state, or ended — the one place a stale answer is dropped.
 * Used on the run's context only.
 */
final class RunLoop {
    private final RunStep.Config config;
    private final Consumer<RunEffect> carryOut;
    private final ArrayDeque<RunInput> inputs = new ArrayDeque<>();
    private RunStep.Machine run = RunStep.Machine.start();
    private boolean feeding;

    RunLoop(RunStep.Config config, Consumer<RunEffect> carryOut) {
        this.config = config;
        this.carryOut = carryOut;
    }

    RunStep.Machine machine() {
        return run;
    }

    /** News from the world (the Lease, a node's roll, an interruption): always taken. */
    void feed(RunInput input) {
        inputs.add(input);
        if (feeding) {
            return;
        }
        feeding = true;
        try {
            for (RunInput next = inputs.poll(); next != null; next = inputs.poll()) {
                RunStep.Step step = RunStep.next(config, run, next);
                run = step.run();
                step.effects().forEach(carryOut);
            }
        } finally {
            feeding = false;
        }
    }

    /** An effect's answer (null: nothing to say), taken only while the run is still in the state that asked. */
    void answer(long epoch, RunInput input) {
        if (input != null && current(epoch)) {
            feed(input);
        }
    }

    /** Whether the run is in its roll step. */
    boolean rolling() {
        return run.state() instanceof RunStep.Rolling;
    }

    /** True once the run stops taking on new work (a failure, a lost Lease, an interruption). */
    boolean stopping() {
        return run.stopping();
    }

    /** Whether the run is still in the state of {@code epoch} and not done. */
    boolean current(long epoch) {
        return epoch == run.epoch() && !run.done();
    }
}
