package dev.crifresh.coordinator.rollout.api;

import io.vertx.core.Future;
import java.util.function.BooleanSupplier;

/**
 * The one fence every cluster write of a run passes (docs/design.md, "Fencing"): a write is sent only while
 * {@link #mayWrite()}. Checked right before each call is sent, not when the step that sends it was decided.
 */
public interface Fence {
    /** The run holds the Lease, its hold is certainly valid now, and (unless closing) the run has not ended. */
    boolean mayWrite();

    /**
     * Completes once the run may write: at once while {@link #mayWrite()}; after an allowed API outage
     * ({@code --api-outage-budget}) once the Lease is renewed again; fails with {@link GuardedPatch.Fenced} when
     * the hold ended for good.
     */
    Future<Void> whenMayWrite();

    /**
     * Reads the Lease right before a reboot request or an ownership claim: fails with {@link GuardedPatch.Fenced}
     * unless it still names this run and the hold is valid now.
     */
    Future<Void> confirm();

    /** How often the hold lapsed during an allowed API outage: a check read before a lapse is stale after it. */
    int lapses();

    /** A fence that always allows writing (tests of one step, where no Lease exists). */
    static Fence open() {
        return of(() -> true);
    }

    /**
     * A fence that allows writing while {@code mayWrite} says so, without a Lease (tests): no outage to wait out, so
     * {@link #whenMayWrite()} and {@link #confirm()} answer at once.
     */
    static Fence of(BooleanSupplier mayWrite) {
        return new Fence() {
            @Override
            public boolean mayWrite() {
                return mayWrite.getAsBoolean();
            }

            @Override
            public Future<Void> whenMayWrite() {
                return mayWrite() ? Future.succeededFuture() : Future.failedFuture(new GuardedPatch.Fenced());
            }

            @Override
            public Future<Void> confirm() {
                return whenMayWrite();
            }

            @Override
            public int lapses() {
                return 0;
            }
        };
    }
}
