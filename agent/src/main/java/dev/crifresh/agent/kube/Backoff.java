package dev.crifresh.agent.kube;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with jitter for API retries: attempt n waits between half and all of
 * {@code min(max, initial · 2^(n−1))}, so many agents that lost the API at once do not return in step.
 */
public final class Backoff {
    private final Duration initial;
    private final Duration max;
    private final DoubleSupplier random;

    public Backoff(Duration initial, Duration max, DoubleSupplier random) {
        if (initial.isZero() || initial.isNegative() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max");
        }
        this.initial = initial;
        this.max = max;
        this.random = random;
    }

    public static Backoff standard() {
        return new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), Math::random);
    }

    /** @param attempt 1 for the first retry */
    public Duration delay(int attempt) {
        long ceiling = initial.toMillis();
        for (int i = 1; i < attempt && ceiling < max.toMillis(); i++) {
            ceiling *= 2;
        }
        ceiling = Math.min(ceiling, max.toMillis());
        long half = ceiling / 2;
        return Duration.ofMillis(half + (long) (random.getAsDouble() * (ceiling - half)));
    }
}
