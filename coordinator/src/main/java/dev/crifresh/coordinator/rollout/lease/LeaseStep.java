package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.ProgressListener.Level;
import dev.crifresh.coordinator.rollout.lease.LeaseEffect.*;
import dev.crifresh.coordinator.rollout.lease.LeaseInput.*;
import dev.crifresh.coordinator.rollout.lease.LeaseState.*;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The run's hold on the Lease {@code crifresh-rollout} as a pure step: {@code next(config, state, input, now) → (state,
 * effects)}; {@link LeaseKeeper} carries the effects out and feeds the answers back. The algorithm (docs/design.md,
 * "Fencing"):
 * <ol>
 *   <li><b>Acquire</b> ({@code Acquiring}), asking again every tenth of {@code --lock-timeout} (20 ms – 1 s) until it
 *       passes; an answer that came later than the hold it bought is not acted on (the next attempt renews it);</li>
 *   <li><b>Hold</b> ({@code Held}) until {@code validUntil = sent + duration − margin}, {@code sent} being when the last
 *       successful acquire or renewal was <em>sent</em>; the margin is a fifth of the duration. Another run can take the
 *       Lease only once {@code renewTime + duration} has passed on its clock, and the renewTime we wrote is later than
 *       {@code sent}, so until {@code validUntil} no other run holds it (clocks agreeing within the margin);</li>
 *   <li><b>Renew</b> a third of the duration after the last renewal was sent; a failed one is retried every tenth
 *       of the duration while the hold is valid;</li>
 *   <li><b>Expire</b>: a timer at {@code validUntil} ends the hold even while a call hangs ({@code Lost}); with
 *       {@code --api-outage-budget} it is {@code Suspended} instead: nothing is sent, renewals go on, and a renewal
 *       that gets through with a valid hold resumes it (it proves the Lease still names this run); the budget used
 *       up ends it;</li>
 *   <li><b>Taken</b>: another holder, or none, seen by the watch, read right before a reboot or a claim, or found
 *       by a renewal, ends the hold at once ({@code Lost}: nothing more is sent, nothing given back);</li>
 *   <li><b>Release</b> ({@code Released}): the run stops renewing at its end; its last hold still fences the
 *       cleanup until {@code validUntil}.</li>
 * </ol>
 */
final class LeaseStep {
    /** What the steps need of the settings; {@code lease}: the Lease's name for messages. */
    record Config(Duration duration, Duration lockTimeout, Duration outageBudget, String lease, String runId) {
        long durationNanos() {
            return duration.toNanos();
        }

        long marginNanos() {
            return margin(duration).toNanos();
        }
    }

    /** The state after an input and what to do for it, in order. */
    record Step(LeaseState state, List<LeaseEffect> effects) {
    }

    private LeaseStep() {
    }

    static LeaseState start() {
        return new Acquiring(0, false, false);
    }

    /** The safety margin subtracted from the Lease duration: a fifth of it (clock skew, a request in flight). */
    static Duration margin(Duration leaseDuration) {
        return leaseDuration.dividedBy(5);
    }

    /** Asking for a held Lease again: every tenth of the lock timeout (20 ms – 1 s), until the lock timeout has passed. */
    static RetryPolicy lockRetry(Duration lockTimeout) {
        return RetryPolicy.constant(Duration.ofMillis(Math.max(20, Math.min(1000, lockTimeout.toMillis() / 10))));
    }

    static Step next(Config c, LeaseState s, LeaseInput in, long now) {
        if (in instanceof Stop) {
            return stop(s);
        }
        if (s instanceof Acquiring a) {
            return acquiring(c, a, in, now);
        }
        if (s instanceof Held || s instanceof Suspended) {
            return holding(c, s, in, now);
        }
        if (s instanceof Lost || s instanceof Released) {
            return known(in) ? stay(s) : unhandled(in);
        }
        throw new IllegalStateException("unhandled lease state " + s);
    }

    // ---- 1. acquire ------------------------------------------------------------------------------------------

    private static Step acquiring(Config c, Acquiring a, LeaseInput in, long now) {
        if (in instanceof Acquire) {
            return new Step(new Acquiring(now + c.lockTimeout().toNanos(), false, a.locked()), List.of(new TryAcquire()));
        }
        if (in instanceof Acquired got) {
            if (got.interrupted()) {
                return new Step(new Released(null, true), List.of(new TellAbandoned()));
            }
            long until = got.sent() + c.durationNanos() - c.marginNanos();
            if (now - until >= 0) {
                // ours on the server (released at the end whatever happens next), but not certainly valid here
                return retry(c, new Acquiring(a.deadline(), a.said(), true), "the Lease answer came too late to act on", now);
            }
            Hold hold = new Hold(got.holder(), until, 0, null, true);
            return new Step(new Held(hold), List.of(expiry(hold, now), new WatchHolder(),
                    new Say(Level.INFO, "rollout lock acquired (Lease " + c.lease() + ", run " + c.runId() + ")"),
                    new ArmTimer(Timer.RENEW, renewDelay(c, got.sent(), now)), new TellAcquired()));
        }
        if (in instanceof NotAcquired no) {
            return no.interrupted() ? new Step(new Released(null, a.locked()), List.of(new TellAbandoned())) : retry(c, a, no.why(), now);
        }
        if (in instanceof TimerFired t && t.timer() == Timer.ACQUIRE) {
            return new Step(a, List.of(new TryAcquire()));
        }
        return known(in) ? stay(a) : unhandled(in);
    }

    private static Step retry(Config c, Acquiring a, String why, long now) {
        Duration left = Duration.ofMillis((a.deadline() - now) / 1_000_000);
        Optional<Duration> retry = lockRetry(c.lockTimeout()).next(1, left);
        if (retry.isEmpty()) {
            return new Step(new Released(null, a.locked()), List.of(new TellNotAcquired("rollout lock (Lease " + c.lease()
                    + ") not acquired within " + DurationText.format(c.lockTimeout()) + ": " + why)));
        }
        List<LeaseEffect> effects = new ArrayList<>();
        if (!a.said()) {
            effects.add(new Say(Level.INFO, "waiting up to " + DurationText.format(c.lockTimeout()) + " for the rollout lock: " + why));
        }
        effects.add(new ArmTimer(Timer.ACQUIRE, retry.get()));
        return new Step(new Acquiring(a.deadline(), true, a.locked()), effects);
    }

    // ---- 2-5. hold, renew, expire, taken -----------------------------------------------------------------------

    private static Step holding(Config c, LeaseState s, LeaseInput in, long now) {
        Hold hold = s instanceof Held h ? h.hold() : ((Suspended) s).hold();
        if (in instanceof Renewed r) {
            Hold next = hold.extended(r.sent() + c.durationNanos() - c.marginNanos()).renewArmed(true);
            List<LeaseEffect> effects = new ArrayList<>(List.of(expiry(next, now), new ArmTimer(Timer.RENEW, renewDelay(c, r.sent(), now))));
            // A renewal answered after the hold it would give had already ended (a slow API server) does not end an
            // allowed outage: the run keeps waiting for one that leaves a valid hold (the next renewal is then due at
            // once). Resuming on it told every waiter "fenced" although nothing was lost.
            if (s instanceof Suspended sus && next.valid(now)) {
                Duration away = Duration.ofNanos(now - sus.since()).withNanos(0);
                effects.add(new CancelTimer(Timer.OUTAGE));
                effects.add(new Say(Level.INFO, "rollout lock renewed again after " + DurationText.format(away)
                        + " without it: going on (every write is decided on a fresh read)"));
                effects.add(new Wake(true));
                return new Step(new Held(next), effects);
            }
            return new Step(with(s, next), effects);
        }
        if (in instanceof RenewRefused) {
            return lose(c, s, hold, "another run holds it");
        }
        if (in instanceof RenewFailed f) {
            Hold next = hold.failed(f.error());
            if (hold.valid(now) || s instanceof Suspended) {
                return new Step(with(s, next.renewArmed(true)), List.of(new ArmTimer(Timer.RENEW, retryDelay(c))));
            }
            return stay(with(s, next)); // the expiry timer ends the hold (or suspends it, with an outage budget)
        }
        if (in instanceof HolderSeen seen) {
            return Objects.equals(hold.identity(), seen.holder()) ? stay(s) : lose(c, s, hold, takenBy(seen.holder()));
        }
        if (in instanceof WatchFailed f) {
            return new Step(s, List.of(new Say(Level.WARN, "warning: cannot watch the rollout Lease (" + f.error()
                    + "); a takeover is noticed at the next renewal or right before the next reboot or claim")));
        }
        if (in instanceof TimerFired t) {
            return timerFired(c, s, hold, t.timer(), now);
        }
        return known(in) ? stay(s) : unhandled(in);
    }

    private static Step timerFired(Config c, LeaseState s, Hold hold, Timer timer, long now) {
        if (timer == Timer.RENEW) {
            return new Step(with(s, hold.renewArmed(false)), List.of(new Renew()));
        }
        if (timer == Timer.EXPIRY) {
            if (!(s instanceof Held) || hold.valid(now)) {
                return stay(s);
            }
            String why = "not renewed within its validity" + lastRenewal(hold);
            return c.outageBudget().isZero() ? lose(c, s, hold, why) : suspend(c, hold, why, now);
        }
        if (timer == Timer.OUTAGE) {
            return s instanceof Suspended
                    ? lose(c, s, hold, "not renewed within --api-outage-budget " + DurationText.format(c.outageBudget()) + lastRenewal(hold))
                    : stay(s);
        }
        if (timer == Timer.ACQUIRE) {
            return stay(s);
        }
        throw new IllegalStateException("unhandled lease timer " + timer);
    }

    /**
     * The hold lapsed and {@code --api-outage-budget} allows an outage (a reboot that takes the API server away):
     * nothing is sent from now on (the fence is closed), renewals go on, and the run waits. A renewal that gets
     * through proves the Lease still names this run — a taker writes its own identity, a deletion leaves none —
     * so nobody held it in between: the run goes on. Another holder, or the budget used up, ends the hold.
     */
    private static Step suspend(Config c, Hold hold, String why, long now) {
        Hold next = hold.lapsed();
        List<LeaseEffect> effects = new ArrayList<>();
        effects.add(new Say(Level.WARN, "the rollout lock (Lease " + c.lease() + ") was " + why + ": nothing is sent until a renewal"
                + " gets through; waiting up to " + DurationText.format(c.outageBudget()) + " (--api-outage-budget)"));
        effects.add(new ArmTimer(Timer.OUTAGE, Duration.ofMillis(Math.max(1, c.outageBudget().toMillis()))));
        if (!hold.renewArmed()) {
            next = next.renewArmed(true);
            effects.add(new ArmTimer(Timer.RENEW, retryDelay(c)));
        }
        return new Step(new Suspended(next, now), effects);
    }

    private static Step lose(Config c, LeaseState s, Hold hold, String why) {
        List<LeaseEffect> effects = new ArrayList<>(stopping());
        effects.add(new TellLost("lost the rollout lock (Lease " + c.lease() + "): " + why));
        return new Step(new Lost(hold, why), effects);
    }

    // ---- 6. release ------------------------------------------------------------------------------------------

    private static Step stop(LeaseState s) {
        if (s instanceof Acquiring a) {
            return new Step(new Released(null, a.locked()), stopping());
        }
        if (s instanceof Held h) {
            return new Step(new Released(h.hold(), true), stopping());
        }
        if (s instanceof Suspended sus) {
            return new Step(new Released(sus.hold(), true), stopping());
        }
        if (s instanceof Lost || s instanceof Released) {
            return stay(s);
        }
        throw new IllegalStateException("unhandled lease state " + s);
    }

    /** No more renewals, expiry or outage timer, no watch; the writes still waiting are fenced. */
    private static List<LeaseEffect> stopping() {
        return List.of(new CancelTimer(Timer.ACQUIRE), new CancelTimer(Timer.RENEW), new CancelTimer(Timer.EXPIRY),
                new CancelTimer(Timer.OUTAGE), new Wake(false), new CloseWatch());
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    private static LeaseState with(LeaseState s, Hold hold) {
        return s instanceof Suspended sus ? new Suspended(hold, sus.since()) : new Held(hold);
    }

    /** The expiry timer: fires right after {@code validUntil}. */
    private static ArmTimer expiry(Hold hold, long now) {
        return new ArmTimer(Timer.EXPIRY, Duration.ofMillis(Math.max(1, (hold.validUntil() - now) / 1_000_000 + 1)));
    }

    /** The next renewal is due a third of the Lease duration after the last one was sent (a slow answer does not push it back). */
    private static Duration renewDelay(Config c, long sentNanos, long now) {
        long due = sentNanos + c.durationNanos() / 3;
        return Duration.ofMillis(Math.max(1, (due - now) / 1_000_000));
    }

    /**
     * Renewing after a failed renewal, and while the hold is suspended: every tenth of the Lease duration (at least
     * 10 ms); the expiry timer (with {@code --api-outage-budget}, the outage timer) ends the retries.
     */
    static RetryPolicy renewRetry(Duration leaseDuration) {
        return RetryPolicy.constant(Duration.ofMillis(Math.max(10, leaseDuration.toMillis() / 10)));
    }

    private static Duration retryDelay(Config c) {
        return renewRetry(c.duration()).delay(1);
    }

    private static String lastRenewal(Hold hold) {
        return hold.lastRenewError() == null ? "" : " (last renewal: " + hold.lastRenewError() + ")";
    }

    static String takenBy(String holder) {
        return holder == null ? "the Lease was deleted (or released by someone else)" : "taken over by " + holder;
    }

    /** Whether {@code in} is an input type this step knows (one it may ignore in some states). */
    private static boolean known(LeaseInput in) {
        return in instanceof Acquire || in instanceof Acquired || in instanceof NotAcquired || in instanceof Renewed
                || in instanceof RenewRefused || in instanceof RenewFailed || in instanceof HolderSeen || in instanceof WatchFailed
                || in instanceof TimerFired || in instanceof Stop;
    }

    private static Step unhandled(LeaseInput in) {
        throw new IllegalStateException("unhandled lease input " + in);
    }

    private static Step stay(LeaseState s) {
        return new Step(s, List.of());
    }
}
