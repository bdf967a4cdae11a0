package dev.crifresh.coordinator.rollout;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Retries one Kubernetes call on a {@link ApiFailure#RETRYABLE} failure with bounded backoff (100 ms
 * doubling to 2 s), and only while the run may still act (it holds the Lease): a transient API error does
 * not end a run, and no retry outlives the Lease. It retries at least {@link #ATTEMPTS} times (about 7 s),
 * and beyond that for as long as {@code budget} — the run's {@code --lease-duration} — has not passed since
 * the first attempt: an API outage the Lease survives (its hold lasts four fifths of a Lease duration after a
 * renewal) then never ends the run, and a longer one ends the hold first (lease-lost: the next run resumes).
 * Any other failure, or the last one, fails the returned future.
 */
final class ApiRetry {
    static final int ATTEMPTS = 8;

    private final Vertx vertx;
    private final BooleanSupplier mayAct;
    private final Duration budget;
    /** When {@code mayAct} is false: completes once the run may act again (after an allowed API outage), or fails. */
    private final Supplier<Future<Void>> whenMayAct;

    /** Retries {@link #ATTEMPTS} times at most. */
    ApiRetry(Vertx vertx, BooleanSupplier mayAct) {
        this(vertx, mayAct, Duration.ZERO);
    }

    /**
     * @param mayAct checked before every retry: false stops retrying (the Lease is no longer held)
     * @param budget how long after the first attempt a retry may still start, whatever the attempt count
     */
    ApiRetry(Vertx vertx, BooleanSupplier mayAct, Duration budget) {
        this(vertx, mayAct, budget, null);
    }

    /**
     * @param whenMayAct while {@code mayAct} is false, whether and when the run may act again: a retry then waits
     *                   for it (an allowed API outage) and starts a fresh budget, instead of failing
     */
    ApiRetry(Vertx vertx, BooleanSupplier mayAct, Duration budget, Supplier<Future<Void>> whenMayAct) {
        this.vertx = vertx;
        this.mayAct = mayAct;
        this.budget = budget;
        this.whenMayAct = whenMayAct;
    }

    /** Whether a failed attempt may be followed by another (pure: the attempt count and the time spent so far). */
    static boolean mayRetry(int attempt, Duration spent, Duration budget) {
        return attempt < ATTEMPTS || spent.compareTo(budget) < 0;
    }

    /** Whether the attempt that just failed with {@code cause}, {@code startNanos} after the first one began, is retried. */
    boolean again(Throwable cause, int attempt, long startNanos) {
        return ApiFailure.of(cause) == ApiFailure.RETRYABLE && mayRetry(attempt, Duration.ofNanos(System.nanoTime() - startNanos), budget)
                && mayAct.getAsBoolean();
    }

    <T> Future<T> call(Supplier<Future<T>> call) {
        Promise<T> promise = Promise.promise();
        attempt(call, 1, System.nanoTime(), new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2)), promise);
        return promise.future();
    }

    /** The run may not act now: wait for an allowed outage to end, then start over with a fresh budget; else fail. */
    private <T> void afterOutage(Supplier<Future<T>> call, Throwable cause, Promise<T> promise) {
        if (whenMayAct == null) {
            promise.fail(cause);
            return;
        }
        whenMayAct.get().onComplete(back -> {
            if (back.succeeded()) {
                attempt(call, 1, System.nanoTime(), new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2)), promise);
            } else {
                promise.fail(cause);
            }
        });
    }

    private <T> void attempt(Supplier<Future<T>> call, int attempt, long start, Backoff backoff, Promise<T> promise) {
        call.get().onComplete(ar -> {
            if (ar.succeeded()) {
                promise.complete(ar.result());
            } else if (again(ar.cause(), attempt, start)) {
                vertx.setTimer(backoff.next(), id -> {
                    if (mayAct.getAsBoolean()) {
                        attempt(call, attempt + 1, start, backoff, promise);
                    } else {
                        afterOutage(call, ar.cause(), promise);
                    }
                });
            } else if (ApiFailure.of(ar.cause()) == ApiFailure.RETRYABLE && !mayAct.getAsBoolean()) {
                afterOutage(call, ar.cause(), promise);
            } else {
                promise.fail(ar.cause());
            }
        });
    }
}
