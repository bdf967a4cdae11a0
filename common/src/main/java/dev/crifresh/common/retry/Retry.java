package dev.crifresh.common.retry;

import java.time.Duration;
import java.util.Optional;

/**
 * One loop's retry as a value, kept inside the state that retries (as Strimzi's {@code KafkaRoller} keeps one
 * back-off per pod): its policy, the attempts that failed so far, and when the first attempt began. Pure: the
 * caller passes the time (milliseconds on its own clock) and owns the timer.
 *
 * @param policy            how long to wait after each failure, and when to give up
 * @param failures          attempts that failed so far (0 before the first failure)
 * @param firstAttemptMillis when the first attempt began, on the caller's clock
 */
public record Retry(RetryPolicy policy, int failures, long firstAttemptMillis) {

    public Retry {
        if (policy == null) {
            throw new IllegalArgumentException("a retry needs a policy");
        }
        if (failures < 0) {
            throw new IllegalArgumentException("a retry's failures must not be negative, got " + failures);
        }
    }

    /** A retry whose first attempt begins at {@code nowMillis}, nothing failed yet. */
    public static Retry first(RetryPolicy policy, long nowMillis) {
        return new Retry(policy, 0, nowMillis);
    }

    /** This retry after one more failed attempt. */
    public Retry failed() {
        return new Retry(policy, failures + 1, firstAttemptMillis);
    }

    /** The delay after the last failure, with no deadline (at least one attempt must have failed). */
    public Duration delay() {
        requireFailure();
        return policy.delay(failures);
    }

    /**
     * The delay after the last failure, or empty to give up: {@link RetryPolicy#next} with the time left of
     * {@code budget}, counted from the first attempt.
     */
    public Optional<Duration> next(long nowMillis, Duration budget) {
        requireFailure();
        return policy.next(failures, budget.minusMillis(nowMillis - firstAttemptMillis));
    }

    /** How long ago the first attempt began. */
    public Duration spent(long nowMillis) {
        return Duration.ofMillis(Math.max(0, nowMillis - firstAttemptMillis));
    }

    private void requireFailure() {
        if (failures == 0) {
            throw new IllegalStateException("no attempt has failed yet: there is no delay to take");
        }
    }
}
