package dev.crifresh.coordinator.rollout.api;

import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
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
public final class ApiRetry {
    static final int ATTEMPTS = 8;

    private final Ticker ticker;
    private final Fence fence;
    private final Duration budget;

    /** Retries {@link #ATTEMPTS} times at most. */
    public ApiRetry(Ticker ticker, Fence fence) {
        this(ticker, fence, Duration.ZERO);
    }

    /**
     * @param fence checked before every retry: a run that may not write stops retrying, or — during an allowed API
     *              outage — waits until it may write again ({@link Fence#whenMayWrite()}) and starts a fresh budget
     * @param budget how long after the first attempt a retry may still start, whatever the attempt count
     */
    public ApiRetry(Ticker ticker, Fence fence, Duration budget) {
        this.ticker = ticker;
        this.fence = fence;
        this.budget = budget;
    }

    /** Whether a failed attempt may be followed by another (pure: the attempt count and the time spent so far). */
    static boolean mayRetry(int attempt, Duration spent, Duration budget) {
        return attempt < ATTEMPTS || spent.compareTo(budget) < 0;
    }

    /** Whether the attempt that just failed with {@code cause}, {@code startNanos} after the first one began, is retried. */
    public boolean again(Throwable cause, int attempt, long startNanos) {
        return ApiFailure.of(cause) == ApiFailure.RETRYABLE && mayRetry(attempt, ticker.since(startNanos), budget)
                && fence.mayWrite();
    }

    public <T> Future<T> call(Supplier<Future<T>> call) {
        Promise<T> promise = Promise.promise();
        attempt(call, 1, ticker.nanoTime(), new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2)), promise);
        return promise.future();
    }

    /** The run may not act now: wait for an allowed outage to end, then start over with a fresh budget; else fail. */
    private <T> void afterOutage(Supplier<Future<T>> call, Throwable cause, Promise<T> promise) {
        fence.whenMayWrite().onComplete(back -> {
            if (back.succeeded()) {
                attempt(call, 1, ticker.nanoTime(), new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2)), promise);
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
                ticker.setTimer(Duration.ofMillis(backoff.next()), () -> {
                    if (fence.mayWrite()) {
                        attempt(call, attempt + 1, start, backoff, promise);
                    } else {
                        afterOutage(call, ar.cause(), promise);
                    }
                });
            } else if (ApiFailure.of(ar.cause()) == ApiFailure.RETRYABLE && !fence.mayWrite()) {
                afterOutage(call, ar.cause(), promise);
            } else {
                promise.fail(ar.cause());
            }
        });
    }
}
