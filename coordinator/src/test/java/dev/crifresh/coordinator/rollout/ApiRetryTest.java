package dev.crifresh.coordinator.rollout;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long a transient API error is retried: at least 8 attempts, and beyond that for one Lease duration. */
class ApiRetryTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theFirstAttemptsAreAlwaysRetried() {
        assertTrue(ApiRetry.mayRetry(1, Duration.ofMinutes(5), LEASE));
        assertTrue(ApiRetry.mayRetry(ApiRetry.ATTEMPTS - 1, Duration.ofMinutes(5), LEASE));
    }

    @Test
    void laterAttemptsAreRetriedWhileOneLeaseDurationHasNotPassed() {
        // An outage the Lease survives (its hold: 24 s of a 30 s Lease after a renewal) must not end the run.
        assertTrue(ApiRetry.mayRetry(ApiRetry.ATTEMPTS, Duration.ofSeconds(12), LEASE));
        assertTrue(ApiRetry.mayRetry(40, Duration.ofSeconds(29), LEASE));
        assertFalse(ApiRetry.mayRetry(ApiRetry.ATTEMPTS, Duration.ofSeconds(30), LEASE));
    }

    @Test
    void withoutABudgetOnlyTheAttemptsCount() {
        assertFalse(ApiRetry.mayRetry(ApiRetry.ATTEMPTS, Duration.ofMillis(1), Duration.ZERO));
    }
}
