package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.CoordinatorSettings;
import dev.crifresh.coordinator.ProgressListener;
import dev.crifresh.coordinator.kube.LeaseLock;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The run's hold on the Lease {@code crifresh-rollout}: takes it (retrying until {@code --lock-timeout}),
 * renews it every third of its duration, notices when it is lost and releases it at the end. Every call
 * and callback happens on the run's context.
 */
final class LeaseKeeper {
    /** What the keeper tells the run it belongs to. */
    interface Run {
        /** The run has finished: Lease answers are ignored. */
        boolean done();

        /** The run was interrupted while taking the Lease. */
        boolean interrupted();

        void lockAcquired();

        /** Interrupted while taking the Lease: the run ends (releasing the Lease if it was taken meanwhile). */
        void lockAbandoned();

        void lockNotAcquired(String why);

        void lockLost(String why);
    }

    private final Vertx vertx;
    private final LeaseLock lease;
    private final CoordinatorSettings settings;
    private final ProgressListener progress;
    private final Run run;

    private boolean locked;
    private long lockDeadline;
    private long renewTimer = -1;
    private long lastRenewNanos;

    LeaseKeeper(Vertx vertx, LeaseLock lease, CoordinatorSettings settings, ProgressListener progress, Run run) {
        this.vertx = vertx;
        this.lease = lease;
        this.settings = settings;
        this.progress = progress;
        this.run = run;
    }

    /** Starts taking the Lease; the run hears of the result. */
    void acquire() {
        lockDeadline = System.nanoTime() + settings.lockTimeout().toNanos();
        tryLock(true);
    }

    /** Stops renewing (the run is ending). */
    void stopRenewing() {
        if (renewTimer >= 0) {
            vertx.cancelTimer(renewTimer);
        }
    }

    /** Gives the Lease back if this run holds it. */
    Future<Void> release() {
        return locked ? lease.release() : Future.succeededFuture();
    }

    private void tryLock(boolean first) {
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
                locked = true;
                lastRenewNanos = System.nanoTime();
                progress.line("rollout lock acquired (Lease " + settings.leaseNamespace() + "/crifresh-rollout, run " + settings.runId() + ")");
                long every = Math.max(10, settings.leaseDuration().toMillis() / 3);
                renewTimer = vertx.setPeriodic(every, id -> renew());
                run.lockAcquired();
                return;
            }
            String why = ar.succeeded() ? "held by " + ar.result().holder() : ErrorText.message(ar.cause());
            long left = (lockDeadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                run.lockNotAcquired("rollout lock (Lease " + settings.leaseNamespace() + "/crifresh-rollout) not acquired within "
                        + NodeRoll.seconds(settings.lockTimeout()) + ": " + why);
                return;
            }
            if (first) {
                progress.line("waiting up to " + NodeRoll.seconds(settings.lockTimeout()) + " for the rollout lock: " + why);
            }
            long retry = Math.min(left, Math.max(20, Math.min(1000, settings.lockTimeout().toMillis() / 10)));
            vertx.setTimer(retry, id -> tryLock(false));
        });
    }

    private void renew() {
        lease.renew().onComplete(ar -> {
            if (run.done()) {
                return;
            }
            if (ar.succeeded() && ar.result()) {
                lastRenewNanos = System.nanoTime();
                return;
            }
            boolean notOurs = ar.succeeded();
            boolean expired = System.nanoTime() - lastRenewNanos > settings.leaseDuration().toNanos();
            if (notOurs || expired) {
                run.lockLost("lost the rollout lock (Lease " + settings.leaseNamespace() + "/crifresh-rollout)"
                        + (notOurs ? ": another run holds it" : ": renewal failed: " + ErrorText.message(ar.cause())));
            }
        });
    }
}
