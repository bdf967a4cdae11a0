package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.coordinator.base.LeaseSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.lease.LeaseEffect.*;
import dev.crifresh.coordinator.rollout.lease.LeaseInput.*;
import dev.crifresh.coordinator.rollout.lease.LeaseState.Suspended;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The run's hold on the Lease {@code crifresh-rollout}, as a fence for every side effect: the effect runner of the pure
 * {@link LeaseStep} (which states the algorithm and the argument; docs/design.md, "Fencing").
 * <ol>
 *   <li>an input (the run's start or stop, a Lease answer, a timer) goes through {@link LeaseStep#next} with the
 *       time, which gives the new state and the effects to carry out, in order;</li>
 *   <li>each effect is carried out through the {@link LeaseLock} and the {@link Ticker}; the run hears of the
 *       outcome through its {@link LockListener}, and writes waiting out an allowed outage are answered;</li>
 *   <li>every Lease answer is dropped once the run is done; an input that arrives while effects are being carried
 *       out waits its turn (no re-entrant step).</li>
 * </ol>
 * {@link #held()} is what the fence reads before every side effect, also on worker threads (the state is an
 * immutable record behind a volatile field). Every other call and callback happens on the run's context.
 */
public final class LeaseKeeper {
    /** What the keeper tells the run it belongs to. */
    public interface LockListener {
        /** The run has finished: Lease answers are ignored. */
        boolean done();

        /** The run was interrupted while taking the Lease. */
        boolean interrupted();

        void lockAcquired();

        /** Interrupted while taking the Lease: the run ends (releasing the Lease if it was taken meanwhile). */
        void lockAbandoned();

        void lockNotAcquired(String why);

        /** The hold ended (another run holds the Lease, or it could not be renewed in time): no more side effects. */
        void lockLost(String why);
    }

    private final Ticker ticker;
    private final LeaseLock lease;
    private final ProgressListener progress;
    private final LockListener run;
    private final LeaseStep.Config config;
    private final ArrayDeque<LeaseInput> inbox = new ArrayDeque<>();
    private final Map<Timer, Long> timers = new EnumMap<>(Timer.class);
    /** Side effects waiting for the hold to come back after an allowed outage. */
    private final List<Promise<Void>> waiting = new ArrayList<>();

    // Read by the fence also on worker threads, right before a call is sent (see held()): volatile.
    private volatile LeaseState state = LeaseStep.start();
    private boolean stepping;
    private LeaseLock.Watch watch;

    public LeaseKeeper(Ticker ticker, LeaseLock lease, LeaseSettings settings, ProgressListener progress, LockListener run) {
        this.ticker = ticker;
        this.lease = lease;
        this.progress = progress;
        this.run = run;
        this.config = new LeaseStep.Config(settings.leaseDuration(), settings.lockTimeout(), settings.apiOutageBudget(),
                settings.namespace() + "/crifresh-rollout", settings.runId());
    }

    /** Starts taking the Lease; the run hears of the result. */
    public void acquire() {
        feed(new Acquire());
    }

    /**
     * Completes once this run may act: at once while {@link #held()}; while an allowed API outage lasts (the hold
     * lapsed, {@code --api-outage-budget} not used up), when a renewal gets through again; fails with
     * {@link GuardedPatch.Fenced} when the hold ended for good.
     */
    Future<Void> whenHeld() {
        if (held()) {
            return Future.succeededFuture();
        }
        if (suspended()) {
            Promise<Void> p = Promise.promise();
            waiting.add(p);
            return p.future();
        }
        return Future.failedFuture(new GuardedPatch.Fenced());
    }

    /** How often the hold lapsed during an allowed API outage so far. */
    int lapses() {
        LeaseState s = state;
        LeaseState.Hold hold = s instanceof LeaseState.Held h ? h.hold() : s instanceof Suspended sus ? sus.hold()
                : s instanceof LeaseState.Lost l ? l.hold() : s instanceof LeaseState.Released r ? r.hold() : null;
        return hold == null ? 0 : hold.lapses();
    }

    /** Whether the hold lapsed during an allowed API outage and may still come back. */
    boolean suspended() {
        return state instanceof Suspended;
    }

    /**
     * Whether this run may act now: it holds the Lease and its hold is certainly still valid. Safe to call from a
     * worker thread (the fence is checked there right before a blocking call is sent).
     */
    public boolean held() {
        return state.holds(ticker.nanoTime());
    }

    /**
     * Reads the Lease right before a reboot request or an ownership claim: it must still name this run. A
     * Lease taken by force (deleted, or another holder written into it) ends the hold at once; fails with
     * {@link GuardedPatch.Fenced} then, or when the hold is not valid now.
     */
    Future<Void> confirm() {
        if (!held()) {
            return Future.failedFuture(new GuardedPatch.Fenced());
        }
        return lease.holder().compose(holder -> {
            answer(new HolderSeen(holder));
            return held() ? Future.<Void>succeededFuture() : Future.failedFuture(new GuardedPatch.Fenced());
        });
    }

    /** Stops renewing and watching (the run is ending). */
    public void stopRenewing() {
        feed(new Stop());
    }

    /** Gives the Lease back if this run still holds it (never after a loss: it may be someone else's now). */
    public Future<Void> release() {
        return state.releases() ? lease.release() : Future.succeededFuture();
    }

    // ---- the runner ------------------------------------------------------------------------------------------

    private void feed(LeaseInput input) {
        inbox.add(input);
        if (stepping) {
            return;
        }
        stepping = true;
        try {
            for (LeaseInput next = inbox.poll(); next != null; next = inbox.poll()) {
                LeaseStep.Step step = LeaseStep.next(config, state, next, ticker.nanoTime());
                state = step.state();
                step.effects().forEach(this::carryOut);
            }
        } finally {
            stepping = false;
        }
    }

    /** A Lease answer or a timer: dropped once the run is done. */
    private void answer(LeaseInput input) {
        if (!run.done()) {
            feed(input);
        }
    }

    /** Carries out one effect of the step; a type this does not know fails loudly. Package-private for its test. */
    void carryOut(LeaseEffect effect) {
        if (effect instanceof TryAcquire) {
            tryAcquire();
        } else if (effect instanceof Renew) {
            renew();
        } else if (effect instanceof WatchHolder) {
            watchHolder();
        } else if (effect instanceof CloseWatch) {
            closeWatch();
        } else {
            carryOutLocal(effect);
        }
    }

    /** The effects that send nothing (timers, waiting writes, progress, the run); an unknown type fails loudly. */
    private void carryOutLocal(LeaseEffect effect) {
        if (effect instanceof ArmTimer t) {
            arm(t);
        } else if (effect instanceof CancelTimer t) {
            cancel(t.timer());
        } else if (effect instanceof Wake w) {
            wake(w);
        } else if (effect instanceof Say s) {
            say(s);
        } else if (effect instanceof TellAcquired) {
            run.lockAcquired();
        } else if (effect instanceof TellAbandoned) {
            run.lockAbandoned();
        } else if (effect instanceof TellNotAcquired n) {
            run.lockNotAcquired(n.why());
        } else if (effect instanceof TellLost l) {
            run.lockLost(l.why());
        } else {
            throw new IllegalStateException("unhandled " + effect);
        }
    }

    private void tryAcquire() {
        long sent = ticker.nanoTime();
        lease.tryAcquire().onComplete(ar -> {
            if (ar.succeeded() && ar.result().acquired()) {
                answer(new Acquired(sent, ar.result().holder(), run.interrupted()));
            } else {
                answer(new NotAcquired(ar.succeeded() ? "held by " + ar.result().holder() : ErrorText.message(ar.cause()),
                        run.interrupted()));
            }
        });
    }

    private void renew() {
        long sent = ticker.nanoTime();
        lease.renew().onComplete(ar -> answer(ar.failed() ? new RenewFailed(ErrorText.message(ar.cause()))
                : ar.result() ? new Renewed(sent) : new RenewRefused()));
    }

    private void watchHolder() {
        lease.watch(holder -> answer(new HolderSeen(holder))).onComplete(ar -> {
            boolean over = !(state instanceof LeaseState.Held || state instanceof Suspended) || run.done();
            if (ar.failed()) {
                if (!over) { // the run ended while the watch was starting: nothing left to watch, nothing to warn about
                    answer(new WatchFailed(ErrorText.message(ar.cause())));
                }
            } else if (over) {
                ar.result().close();
            } else {
                watch = ar.result();
            }
        });
    }

    private void closeWatch() {
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }

    private void arm(ArmTimer t) {
        cancel(t.timer());
        timers.put(t.timer(), ticker.setTimer(t.delay(), () -> {
            timers.remove(t.timer());
            answer(new TimerFired(t.timer()));
        }));
    }

    private void wake(Wake w) {
        List<Promise<Void>> woken = List.copyOf(waiting);
        waiting.clear();
        for (Promise<Void> p : woken) {
            if (w.held() && held()) {
                p.tryComplete();
            } else {
                p.tryFail(new GuardedPatch.Fenced());
            }
        }
    }

    private void say(Say s) {
        if (s.level() == ProgressListener.Level.INFO) {
            progress.line(s.text());
        } else {
            progress.log(s.level(), s.text());
        }
    }

    private void cancel(Timer timer) {
        Long id = timers.remove(timer);
        if (id != null) {
            ticker.cancelTimer(id);
        }
    }
}
