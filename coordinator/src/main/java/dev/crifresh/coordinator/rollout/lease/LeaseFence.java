package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The run's {@link Fence}: the Lease hold ({@link LeaseKeeper}), while the run is open. {@link #closing()} is the
 * same fence for the end-of-run cleanup (taints, Events), which still writes after the run ended, and only while
 * the hold is valid.
 */
public final class LeaseFence implements Fence {
    private final LeaseKeeper lease;
    private final BooleanSupplier open;
    private final Ticker ticker;
    private final Duration budget;
    private final ApiRetry retry;

    /**
     * @param open whether the run has not ended; an ended run writes only through {@link #closing()}
     * @param budget how long the Lease read of {@link #confirm()} is retried on transient errors ({@link ApiRetry})
     */
    public LeaseFence(LeaseKeeper lease, BooleanSupplier open, Ticker ticker, Duration budget) {
        this.lease = lease;
        this.open = open;
        this.ticker = ticker;
        this.budget = budget;
        this.retry = new ApiRetry(ticker, this, budget);
    }

    /** The fence for the end-of-run cleanup: the hold alone, whether or not the run has ended. */
    public LeaseFence closing() {
        return new LeaseFence(lease, () -> true, ticker, budget);
    }

    @Override
    public boolean mayWrite() {
        return open.getAsBoolean() && lease.held();
    }

    @Override
    public Future<Void> whenMayWrite() {
        return open.getAsBoolean() ? lease.whenHeld() : Future.failedFuture(new GuardedPatch.Fenced());
    }

    @Override
    public Future<Void> confirm() {
        return open.getAsBoolean() ? retry.call(lease::confirm) : Future.failedFuture(new GuardedPatch.Fenced());
    }

    @Override
    public int lapses() {
        return lease.lapses();
    }
}
