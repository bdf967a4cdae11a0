package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The run's hold on the Lease {@code crifresh-rollout}, as a fence for every side effect: takes it
 * (retrying until {@code --lock-timeout}), renews it every third of its duration, and knows until when the
 * hold is certainly valid:
 * <pre>validUntil = (when the last successful acquire/renew request was sent) + leaseDuration − margin</pre>
 * Another run can take the Lease only once {@code renewTime + leaseDuration} has passed, and the renewTime
 * we wrote is later than our send time, so until {@code validUntil} no other run holds it (clocks agreeing
 * within the margin). {@link #held()} is checked before every side effect; a timer fires at
 * {@code validUntil} and stops the run even while a call hangs. A failed renewal is retried until then. See
 * docs/design.md, "Fencing". Every call and callback happens on the run's context.
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
    private final CoordinatorSettings settings;
    private final ProgressListener progress;
    private final LockListener run;
    private final long durationNanos;
    private final long marginNanos;

    // Read by the fence also on worker threads, right before a call is sent (see held()): volatile.
    private volatile boolean locked;
    private volatile boolean lost;
    private long lockDeadline;
    private volatile long validUntilNanos;
    private long renewTimer = -1;
    private long expiryTimer = -1;
    private String lastRenewError;
    /** This run's holder identity, as the acquire wrote it. */
    private String identity;
    private LeaseLock.Watch watch;
    private boolean stopped;
    /** With {@code --api-outage-budget}: when the hold lapsed without a renewal (nanoTime), or 0 while held. */
    private long suspendedSince;
    /** How often the hold lapsed during an allowed outage: a decision read before a lapse is stale after it. */
    private int lapses;
    private long outageTimer = -1;
    /** Side effects waiting for the hold to come back after an allowed outage. */
    private final List<Promise<Void>> waiting = new ArrayList<>();

    public LeaseKeeper(Vertx vertx, LeaseLock lease, CoordinatorSettings settings, ProgressListener progress, LockListener run) {
        this(Ticker.of(vertx), lease, settings, progress, run);
    }

    public LeaseKeeper(Ticker ticker, LeaseLock lease, CoordinatorSettings settings, ProgressListener progress, LockListener run) {
        this.ticker = ticker;
        this.lease = lease;
        this.settings = settings;
        this.progress = progress;
        this.run = run;
        this.durationNanos = settings.leaseDuration().toNanos();
        this.marginNanos = margin(settings.leaseDuration()).toNanos();
    }

    /** The safety margin subtracted from the Lease duration: a fifth of it (clock skew, a request in flight). */
    static Duration margin(Duration leaseDuration) {
        return leaseDuration.dividedBy(5);
    }

    /** Starts taking the Lease; the run hears of the result. */
    public void acquire() {
        lockDeadline = ticker.nanoTime() + settings.lockTimeout().toNanos();
        tryLock(true);
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
        return lapses;
    }

    /** Whether the hold lapsed during an allowed API outage and may still come back. */
    boolean suspended() {
        return suspendedSince != 0 && !lost && !stopped;
    }

    /**
     * Whether this run may act now: it holds the Lease and its hold is certainly still valid. Safe to call from a
     * worker thread (the fence is checked there right before a blocking call is sent).
     */
    public boolean held() {
        return locked && !lost && ticker.nanoTime() - validUntilNanos < 0;
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
            if (!lost && !run.done() && !Objects.equals(identity, holder)) {
                lose(takenBy(holder));
            }
            return held() ? Future.<Void>succeededFuture() : Future.failedFuture(new GuardedPatch.Fenced());
        });
    }

    /** Stops renewing and watching (the run is ending). */
    public void stopRenewing() {
        stopped = true;
        cancel(renewTimer);
        cancel(expiryTimer);
        renewTimer = -1;
        expiryTimer = -1;
        cancel(outageTimer);
        outageTimer = -1;
        wake(false);
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }

    /**
     * Watches the Lease for as long as the run holds it: a holder other than this run, or none (deleted), ends the
     * hold at once — an operator who takes a Lease by force does not wait for it to expire (see docs/design.md,
     * "Fencing"). Without the watch a takeover is still noticed at the next renewal and by {@link #confirm()}.
     */
    private void watchHolder() {
        lease.watch(this::holderSeen).onComplete(ar -> {
            if (ar.failed() && (stopped || lost || run.done())) {
                return; // the run ended while the watch was starting: nothing left to watch, nothing to warn about
            }
            if (ar.failed()) {
                progress.log(ProgressListener.Level.WARN, "warning: cannot watch the rollout Lease (" + ErrorText.message(ar.cause())
                        + "); a takeover is noticed at the next renewal or right before the next reboot or claim");
                return;
            }
            if (stopped || lost || run.done()) {
                ar.result().close();
                return;
            }
            watch = ar.result();
        });
    }

    private void holderSeen(String holder) {
        if (!locked || stopped || lost || run.done()) {
            return;
        }
        if (!Objects.equals(identity, holder)) {
            lose(takenBy(holder));
        }
    }

    private static String takenBy(String holder) {
        return holder == null ? "the Lease was deleted (or released by someone else)" : "taken over by " + holder;
    }

    /** Gives the Lease back if this run still holds it (never after a loss: it may be someone else's now). */
    public Future<Void> release() {
        return locked && !lost ? lease.release() : Future.succeededFuture();
    }

    private void tryLock(boolean first) {
        long sent = ticker.nanoTime();
        lease.tryAcquire().onComplete(ar -> {
            if (run.done()) {
                return;
            }
            if (run.interrupted()) {
                if (ar.succeeded() && ar.result().acquired()) {
                    locked = true;
                }
                run.lockAbandoned();
                return;
            }
            if (ar.succeeded() && ar.result().acquired()) {
                locked = true; // ours on the server: released at the end whatever happens next
                if (ticker.nanoTime() - (sent + durationNanos - marginNanos) >= 0) {
                    // The answer came later than the hold it bought: not certainly valid here. Try again (the
                    // Lease is ours, so the next attempt renews it).
                    retryLock(first, "the Lease answer came too late to act on");
                    return;
                }
                identity = ar.result().holder();
                extend(sent);
                watchHolder();
                progress.line("rollout lock acquired (Lease " + settings.leaseNamespace() + "/crifresh-rollout, run " + settings.runId() + ")");
                scheduleRenew(renewDelay(sent));
                run.lockAcquired();
                return;
            }
            retryLock(first, ar.succeeded() ? "held by " + ar.result().holder() : ErrorText.message(ar.cause()));
        });
    }

    private void retryLock(boolean first, String why) {
        long left = (lockDeadline - ticker.nanoTime()) / 1_000_000;
        if (left <= 0) {
            run.lockNotAcquired("rollout lock (Lease " + settings.leaseNamespace() + "/crifresh-rollout) not acquired within "
                    + DurationText.format(settings.lockTimeout()) + ": " + why);
            return;
        }
        if (first) {
            progress.line("waiting up to " + DurationText.format(settings.lockTimeout()) + " for the rollout lock: " + why);
        }
        long retry = Math.min(left, Math.max(20, Math.min(1000, settings.lockTimeout().toMillis() / 10)));
        ticker.setTimer(Duration.ofMillis(retry), () -> tryLock(false));
    }

    /** The next renewal is due a third of the Lease duration after the last one was sent (a slow answer does not push it back). */
    private long renewDelay(long sentNanos) {
        long due = sentNanos + durationNanos / 3;
        return Math.max(1, (due - ticker.nanoTime()) / 1_000_000);
    }

    private void scheduleRenew(long delayMillis) {
        cancel(renewTimer);
        renewTimer = ticker.setTimer(Duration.ofMillis(Math.max(1, delayMillis)), () -> {
            renewTimer = -1;
            renew();
        });
    }

    /** A successful request sent at {@code sent} holds the Lease until {@code sent + duration − margin}. */
    private void extend(long sentNanos) {
        long until = sentNanos + durationNanos - marginNanos;
        if (validUntilNanos == 0 || until - validUntilNanos > 0) {
            validUntilNanos = until;
        }
        cancel(expiryTimer);
        long left = Math.max(1, (validUntilNanos - ticker.nanoTime()) / 1_000_000 + 1);
        expiryTimer = ticker.setTimer(Duration.ofMillis(left), () -> {
            expiryTimer = -1;
            if (!lost && !run.done() && !held() && suspendedSince == 0) {
                String why = "not renewed within its validity" + (lastRenewError == null ? "" : " (last renewal: " + lastRenewError + ")");
                if (settings.apiOutageBudget().isZero() || stopped) {
                    lose(why);
                } else {
                    suspend(why);
                }
            }
        });
    }

    private void renew() {
        if (lost || run.done()) {
            return;
        }
        long sent = ticker.nanoTime();
        lease.renew().onComplete(ar -> {
            if (lost || run.done()) {
                return;
            }
            if (ar.succeeded() && ar.result()) {
                lastRenewError = null;
                extend(sent);
                scheduleRenew(renewDelay(sent));
                // A renewal answered after the hold it would give had already ended (a slow API server) does not end
                // an allowed outage: the run keeps waiting for one that leaves a valid hold (renewDelay is then due at
                // once). Resuming on it told every waiter "fenced" although nothing was lost, and a 1,000-node scale run
                // hung with its rolls rolled back half-way.
                if (suspendedSince != 0 && held()) {
                    resume();
                }
                return;
            }
            if (ar.succeeded()) {
                lose("another run holds it");
                return;
            }
            lastRenewError = ErrorText.message(ar.cause());
            if (held() || suspended()) {
                scheduleRenew(Math.max(10, settings.leaseDuration().toMillis() / 10));
            }
            // else: the expiry timer ends the hold (or suspends it, with an outage budget)
        });
    }

    /**
     * The hold lapsed and {@code --api-outage-budget} allows an outage (a reboot that takes the API server away):
     * nothing is sent from now on (the fence is closed), renewals go on, and the run waits. A renewal that gets
     * through proves the Lease still names this run — a taker writes its own identity, a deletion leaves none —
     * so nobody held it in between: the run goes on. Another holder, or the budget used up, ends the hold.
     */
    private void suspend(String why) {
        suspendedSince = ticker.nanoTime();
        lapses++;
        Duration budget = settings.apiOutageBudget();
        progress.log(ProgressListener.Level.WARN, "the rollout lock (Lease " + settings.leaseNamespace() + "/crifresh-rollout) was "
                + why + ": nothing is sent until a renewal gets through; waiting up to " + DurationText.format(budget)
                + " (--api-outage-budget)");
        outageTimer = ticker.setTimer(Duration.ofMillis(Math.max(1, budget.toMillis())), () -> {
            outageTimer = -1;
            if (suspended() && !run.done()) {
                lose("not renewed within --api-outage-budget " + DurationText.format(budget)
                        + (lastRenewError == null ? "" : " (last renewal: " + lastRenewError + ")"));
            }
        });
        if (renewTimer < 0) {
            scheduleRenew(Math.max(10, settings.leaseDuration().toMillis() / 10));
        }
    }

    private void resume() {
        Duration away = Duration.ofNanos(ticker.nanoTime() - suspendedSince).withNanos(0);
        suspendedSince = 0;
        cancel(outageTimer);
        outageTimer = -1;
        progress.line("rollout lock renewed again after " + DurationText.format(away) + " without it: going on (every write is"
                + " decided on a fresh read)");
        wake(true);
    }

    private void wake(boolean held) {
        List<Promise<Void>> woken = List.copyOf(waiting);
        waiting.clear();
        for (Promise<Void> p : woken) {
            if (held && held()) {
                p.tryComplete();
            } else {
                p.tryFail(new GuardedPatch.Fenced());
            }
        }
    }

    private void lose(String why) {
        lost = true;
        stopRenewing();
        run.lockLost("lost the rollout lock (Lease " + settings.leaseNamespace() + "/crifresh-rollout): " + why);
    }

    private void cancel(long timer) {
        if (timer >= 0) {
            ticker.cancelTimer(timer);
        }
    }
}
