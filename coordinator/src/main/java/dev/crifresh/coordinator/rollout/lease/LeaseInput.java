package dev.crifresh.coordinator.rollout.lease;

/** What the run's hold on the Lease learns ({@link LeaseStep}): the run's start and stop, and the Lease's answers. */
sealed interface LeaseInput {
    /** Start taking the Lease. */
    record Acquire() implements LeaseInput {
    }

    /** An acquire sent at {@code sent} (nanoTime) took the Lease for {@code holder}; {@code interrupted}: the run is. */
    record Acquired(long sent, String holder, boolean interrupted) implements LeaseInput {
    }

    /** An acquire did not take the Lease ({@code why}: who holds it, or the error); {@code interrupted}: the run is. */
    record NotAcquired(String why, boolean interrupted) implements LeaseInput {
    }

    /** A renewal sent at {@code sent} (nanoTime) got through. */
    record Renewed(long sent) implements LeaseInput {
    }

    /** A renewal found the Lease no longer ours. */
    record RenewRefused() implements LeaseInput {
    }

    /** A renewal failed ({@code error}); it may not have reached the API server. */
    record RenewFailed(String error) implements LeaseInput {
    }

    /** The Lease names {@code holder} (null: none, or deleted): seen by the watch, or read right before a reboot or claim. */
    record HolderSeen(String holder) implements LeaseInput {
    }

    /** The watch on the Lease could not be started. */
    record WatchFailed(String error) implements LeaseInput {
    }

    /** One of the hold's timers fired. */
    record TimerFired(LeaseEffect.Timer timer) implements LeaseInput {
    }

    /** The run is ending: stop renewing and watching. */
    record Stop() implements LeaseInput {
    }
}
