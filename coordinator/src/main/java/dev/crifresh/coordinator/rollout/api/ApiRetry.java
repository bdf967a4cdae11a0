package dev.crifresh.coordinator.rollout.api;

import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Retries one Kubernetes call on a {@link ApiFailure#RETRYABLE} failure with bounded backoff ({@link #POLICY}: 100 ms
 * doubling to 2 s), and only while the run may still act (it holds the Lease): a transient API error does
 * not end a run, and no retry outlives the Lease. It retries at least {@link #ATTEMPTS} times (about 7 s),
 * and beyond that for as long as {@code budget} — the run's {@code --lease-duration} — has not passed since
 * the first attempt: an API outage the Lease survives (its hold lasts four fifths of a Lease duration after a
 * renewal) then never ends the run, and a longer one ends the hold first (lease-lost: the next run resumes).
 * Any other failure, or the last one, fails the returned future.
 */
public final class ApiRetry {
    static final int ATTEMPTS = 8;
    /** 100 ms doubling to 2 s; the budget counts only once {@link #ATTEMPTS} attempts have failed. */
    static final RetryPolicy POLICY = RetryPolicy.doubling(Duration.ofMillis(100), Duration.ofSeconds(2)).withMinAttempts(ATTEMPTS);

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

    /** The delay before the next attempt, or empty to give up ({@link #POLICY}: the attempt count and the time spent so far). */
    static Optional<Duration> delay(int attempt, Duration spent, Duration budget) {
        return POLICY.next(attempt, budget.minus(spent));
    }

    /** Whether a failed attempt may be followed by another (pure: the attempt count and the time spent so far). */
    static boolean mayRetry(int attempt, Duration spent, Duration budget) {
        return delay(attempt, spent, budget).isPresent();
    }

    /** Whether the attempt that just failed with {@code cause}, {@code startNanos} after the first one began, is retried. */
    public boolean again(Throwable cause, int attempt, long startNanos) {
        return retryAfter(cause, attempt, startNanos).isPresent();
    }

    /** {@link #again}, with the delay before the retry. */
    private Optional<Duration> retryAfter(Throwable cause, int attempt, long startNanos) {
        if (ApiFailure.of(cause) != ApiFailure.RETRYABLE || !fence.mayWrite()) {
            return Optional.empty();
        }
        return delay(attempt, ticker.since(startNanos), budget);
    }

    public <T> Future<T> call(Supplier<Future<T>> call) {
        Promise<T> promise = Promise.promise();
        attempt(call, 1, ticker.nanoTime(), promise);
        return promise.future();
    }

    /** The run may not act now: wait for an allowed outage to end, then start over with a fresh budget; else fail. */
    private <T> void afterOutage(Supplier<Future<T>> call, Throwable cause, Promise<T> promise) {
        fence.whenMayWrite().onComplete(back -> {
            if (back.succeeded()) {
                attempt(call, 1, ticker.nanoTime(), promise);
            } else {
                promise.fail(cause);
            }
        });
    }

    private <T> void attempt(Supplier<Future<T>> call, int attempt, long start, Promise<T> promise) {
        call.get().onComplete(ar -> {
            if (ar.succeeded()) {
                promise.complete(ar.result());
                return;
            }
            Optional<Duration> retry = retryAfter(ar.cause(), attempt, start);
            if (retry.isPresent()) {
                ticker.setTimer(retry.get(), () -> {
                    if (fence.mayWrite()) {
                        attempt(call, attempt + 1, start, promise);
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
