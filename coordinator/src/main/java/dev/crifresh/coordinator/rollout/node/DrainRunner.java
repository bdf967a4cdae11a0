package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.kube.PodOps.Eviction;
import dev.crifresh.coordinator.kube.PodOps.PodWatch;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.node.DrainEffect.*;
import dev.crifresh.coordinator.rollout.node.DrainInput.*;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The drain step of a {@link NodeRunner}: the effect runner of the pure {@link DrainStep} (which states the algorithm).
 * <ol>
 *   <li>an input (the roll's start or stop, or an answer) goes through {@link DrainStep#next}, which gives the new
 *       state and the effects to carry out, in order;</li>
 *   <li>each effect is carried out through the roll's ports ({@link RollPorts}: pods, the fence, the ticker); a round
 *       of evictions passes the fence right before it is sent, and is not sent while the run may not write;</li>
 *   <li>every answer carries the epoch of the state that asked for it (it moves on with each start and end): an
 *       answer of another epoch, or one that arrives once the roll left its drain step, is dropped here, and nowhere
 *       else;</li>
 *   <li>an input that arrives while effects are being carried out waits its turn (no re-entrant step).</li>
 * </ol>
 * Runs on the run's context.
 */
final class DrainRunner {
    private final RollPorts ports;
    private final String name;
    private final BooleanSupplier draining;
    private final Consumer<String> say;
    private final Runnable drained;
    private final Consumer<String> failed;
    private final ArrayDeque<DrainInput> inbox = new ArrayDeque<>();
    /** The ids of the timers set, by kind. */
    private final Map<Timer, Long> timers = new EnumMap<>(Timer.class);

    private DrainState state = DrainStep.idle();
    private boolean stepping;
    private PodWatch watch;

    /**
     * @param draining whether the roll is still in its drain step
     * @param say      a progress line about the node
     * @param drained  every pod to evict is gone
     * @param failed   the drain did not finish in time (the reason)
     */
    DrainRunner(RollPorts ports, String name, BooleanSupplier draining, Consumer<String> say, Runnable drained,
                Consumer<String> failed) {
        this.ports = ports;
        this.name = name;
        this.draining = draining;
        this.say = say;
        this.drained = drained;
        this.failed = failed;
    }

    /** Starts a drain (again) with a fresh deadline: watch the node's pods, then evict. */
    void start() {
        feed(new Start(ports.settings().timeouts().drain(), ports.settings().drain()));
    }

    /** Stops the drain: cancels its timers and closes the pod watch. */
    void stop() {
        feed(new Stop());
    }

    /** The state, for tests. */
    DrainState state() {
        return state;
    }

    private void feed(DrainInput input) {
        inbox.add(input);
        if (stepping) {
            return;
        }
        stepping = true;
        try {
            for (DrainInput next = inbox.poll(); next != null; next = inbox.poll()) {
                DrainStep.Step step = DrainStep.next(state, next);
                state = step.state();
                step.effects().forEach(this::carryOut);
            }
        } finally {
            stepping = false;
        }
    }

    /** An answer asked for in epoch {@code asked}: taken only while the drain is still in it and the roll drains. */
    private void answer(long asked, DrainInput input) {
        if (current(asked)) {
            feed(input);
        }
    }

    private boolean current(long asked) {
        return asked == state.epoch() && draining.getAsBoolean();
    }

    /** Carries out one effect of the step; a type this does not know fails loudly. Package-private for its test. */
    void carryOut(DrainEffect effect) {
        long e = state.epoch();
        if (effect instanceof ArmTimer t) {
            cancel(t.timer());
            timers.put(t.timer(), ports.ticker().setTimer(t.delay(), () -> {
                timers.remove(t.timer());
                answer(e, new TimerFired(t.timer()));
            }));
        } else if (effect instanceof Close) {
            for (Timer t : Timer.values()) {
                cancel(t);
            }
            if (watch != null) {
                watch.close();
                watch = null;
            }
        } else if (effect instanceof ListPods) {
            ports.pods().podsOn(name).onComplete(ar -> answer(e, ar.succeeded() ? new Listed(ar.result())
                    : new ListFailed(ErrorText.message(ar.cause()))));
        } else if (effect instanceof Watch) {
            watch(e);
        } else if (effect instanceof ReadWatch) {
            if (watch != null) {
                answer(e, new WatchSaw(watch.pods()));
            }
        } else if (effect instanceof Evict ev) {
            evict(e, ev.pods());
        } else if (effect instanceof Say s) {
            say.accept(s.text());
        } else if (effect instanceof TellDrained) {
            drained.run();
        } else if (effect instanceof TellFailed f) {
            failed.accept(f.why());
        } else {
            throw new IllegalStateException("unhandled " + effect);
        }
    }

    private void watch(long e) {
        ports.pods().watchPodsOn(name, () -> {
            if (watch != null && current(e)) {
                feed(new WatchSaw(watch.pods()));
            }
        }).onComplete(ar -> {
            if (!current(e)) {
                if (ar.succeeded()) {
                    ar.result().close();
                }
                return;
            }
            if (ar.succeeded()) {
                watch = ar.result();
                feed(new WatchStarted(watch.pods()));
            } else {
                feed(new WatchFailed(ErrorText.message(ar.cause())));
            }
        });
    }

    private void evict(long e, List<Pod> pods) {
        if (!ports.fence().mayWrite()) {
            answer(e, new NotSent(pods)); // fenced: no eviction once the Lease is not certainly held; the lost Lease ends the run
            return;
        }
        List<Future<Eviction>> attempts = new ArrayList<>();
        for (Pod pod : pods) {
            attempts.add(ports.pods().evict(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        }
        Future.join(attempts).onComplete(ignored -> {
            List<EvictionAnswer> answers = new ArrayList<>();
            for (int i = 0; i < pods.size(); i++) {
                Future<Eviction> f = attempts.get(i);
                answers.add(new EvictionAnswer(pods.get(i), f.succeeded() ? f.result() : null,
                        f.failed() ? ErrorText.message(f.cause()) : null));
            }
            answer(e, new Answered(answers));
        });
    }

    private void cancel(Timer timer) {
        Long id = timers.remove(timer);
        if (id != null) {
            ports.ticker().cancelTimer(id);
        }
    }
}
