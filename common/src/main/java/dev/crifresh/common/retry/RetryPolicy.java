package dev.crifresh.common.retry;

import java.time.Duration;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * Exponential back-off, capped, jittered and deadline-aware, as a pure decision: the caller counts attempts and
 * owns the timer. The ceiling for attempt {@code n} (1 for the first retry) is {@code min(cap, first · 2^(n−1))};
 * the delay is drawn between {@code ceiling · (1 − jitter)} and the ceiling with {@code random} (a value in [0, 1)),
 * so many clients that failed together do not return in step; {@code jitter} 0 gives the ceiling itself. A deadline
 * counts from attempt {@code minAttempts} on: before it the policy always retries; from it, none left means give up,
 * and a delay never waits past the deadline.
 *
 * @param first       the ceiling of the first retry's delay (at least 1 ms)
 * @param cap         the largest ceiling ({@code >= first})
 * @param jitter      the share of the ceiling that {@code random} may take off, in [0, 1)
 * @param minAttempts attempts that are retried whatever the deadline (0: the deadline always counts)
 * @param random      the random source, injected so that tests are deterministic
 */
public record RetryPolicy(Duration first, Duration cap, double jitter, int minAttempts, DoubleSupplier random) {
    private static final DoubleSupplier NONE = () -> 0.0;

    public RetryPolicy {
        if (first.toMillis() < 1 || cap.compareTo(first) < 0) {
            throw new IllegalArgumentException("retry policy needs 1 ms <= first <= cap, got first " + first + ", cap " + cap);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("retry policy jitter must be in [0, 1), got " + jitter);
        }
        if (minAttempts < 0) {
            throw new IllegalArgumentException("retry policy minAttempts must not be negative, got " + minAttempts);
        }
    }

    /** Doubling from {@code first} to {@code cap}, no jitter, the deadline counting from the first attempt. */
    public static RetryPolicy doubling(Duration first, Duration cap) {
        return new RetryPolicy(first, cap, 0, 0, NONE);
    }

    /** The same delay every time, no jitter, the deadline counting from the first attempt. */
    public static RetryPolicy constant(Duration every) {
        return doubling(every, every);
    }

    /** This policy with jitter: the delay is drawn between {@code ceiling · (1 − jitter)} and the ceiling. */
    public RetryPolicy withJitter(double jitter, DoubleSupplier random) {
        return new RetryPolicy(first, cap, jitter, minAttempts, random);
    }

    /** This policy retrying the first {@code minAttempts} attempts whatever the deadline. */
    public RetryPolicy withMinAttempts(int minAttempts) {
        return new RetryPolicy(first, cap, jitter, minAttempts, random);
    }

    /** The ceiling of attempt {@code attempt}'s delay (1 for the first retry), in milliseconds. */
    public long ceilingMillis(int attempt) {
        long ceiling = first.toMillis();
        long max = cap.toMillis();
        for (int i = 1; i < attempt && ceiling < max; i++) {
            ceiling *= 2;
        }
        return Math.min(ceiling, max);
    }

    /** The delay after failed attempt {@code attempt} (1 for the first), with no deadline: always a delay. */
    public Duration delay(int attempt) {
        long ceiling = ceilingMillis(attempt);
        long low = ceiling - (long) (ceiling * jitter);
        return Duration.ofMillis(low + (long) (random.getAsDouble() * (ceiling - low)));
    }

    /**
     * The delay after failed attempt {@code attempt} (1 for the first), or empty to give up: from attempt
     * {@link #minAttempts()} on, when {@code left} (the time left before the caller's deadline) is zero or
     * negative; a delay is never longer than {@code left} then.
     */
    public Optional<Duration> next(int attempt, Duration left) {
        Duration delay = delay(attempt);
        if (attempt < minAttempts) {
            return Optional.of(delay);
        }
        if (left.isZero() || left.isNegative()) {
            return Optional.empty();
        }
        return Optional.of(delay.compareTo(left) > 0 ? left : delay);
    }
}
