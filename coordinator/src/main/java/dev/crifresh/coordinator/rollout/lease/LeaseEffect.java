package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.coordinator.base.ProgressListener;
import java.time.Duration;

/** What the hold asks to be done ({@link LeaseStep}); {@link LeaseKeeper} carries it out and answers with a {@link LeaseInput}. */
sealed interface LeaseEffect {
    /** The hold's timers: one of each at most. */
    enum Timer {
        /** The next acquire attempt. */
        ACQUIRE,
        /** The next renewal. */
        RENEW,
        /** The end of the hold's validity. */
        EXPIRY,
        /** The end of {@code --api-outage-budget} while the hold is suspended. */
        OUTAGE
    }

    /** Send an acquire ({@link LeaseInput.Acquired} or {@link LeaseInput.NotAcquired}, with its send time). */
    record TryAcquire() implements LeaseEffect {
    }

    /** Send a renewal ({@link LeaseInput.Renewed}, {@link LeaseInput.RenewRefused} or {@link LeaseInput.RenewFailed}). */
    record Renew() implements LeaseEffect {
    }

    /** (Re)set one timer (an earlier one of the same kind is cancelled); answered with {@link LeaseInput.TimerFired}. */
    record ArmTimer(Timer timer, Duration delay) implements LeaseEffect {
    }

    /** Cancel one timer. */
    record CancelTimer(Timer timer) implements LeaseEffect {
    }

    /** Watch the Lease's holder ({@link LeaseInput.HolderSeen} on every change, or {@link LeaseInput.WatchFailed}). */
    record WatchHolder() implements LeaseEffect {
    }

    /** Close the watch on the Lease. */
    record CloseWatch() implements LeaseEffect {
    }

    /** Answer the writes waiting for the hold to come back: go on ({@code held}) or fenced. */
    record Wake(boolean held) implements LeaseEffect {
    }

    /** A progress line. */
    record Say(ProgressListener.Level level, String text) implements LeaseEffect {
    }

    /** Tell the run: the Lease is taken. */
    record TellAcquired() implements LeaseEffect {
    }

    /** Tell the run: interrupted while taking the Lease. */
    record TellAbandoned() implements LeaseEffect {
    }

    /** Tell the run: the Lease was not taken within {@code --lock-timeout}. */
    record TellNotAcquired(String why) implements LeaseEffect {
    }

    /** Tell the run: the hold ended for good. */
    record TellLost(String why) implements LeaseEffect {
    }
}
