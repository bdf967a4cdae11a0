package dev.crifresh.common.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryTest {
    private static final RetryPolicy DOUBLING = RetryPolicy.doubling(Duration.ofMillis(100), Duration.ofSeconds(1));

    @Test
    void countsFailuresAndDoublesFromThePolicy() {
        Retry r = Retry.first(DOUBLING, 5_000).failed();
        assertEquals(Duration.ofMillis(100), r.delay());
        r = r.failed().failed();
        assertEquals(3, r.failures());
        assertEquals(Duration.ofMillis(400), r.delay());
        assertEquals(5_000, r.firstAttemptMillis());
    }

    @Test
    void theBudgetCountsFromTheFirstAttempt() {
        Retry r = Retry.first(DOUBLING, 5_000).failed().failed();
        assertEquals(Optional.of(Duration.ofMillis(200)), r.next(5_100, Duration.ofSeconds(1)));
        assertEquals(Optional.of(Duration.ofMillis(50)), r.next(5_950, Duration.ofSeconds(1)), "never waits past the budget");
        assertEquals(Optional.empty(), r.next(6_000, Duration.ofSeconds(1)));
        assertEquals(Duration.ofMillis(1_000), r.spent(6_000));
    }

    @Test
    void noDelayBeforeAFailureAndNoNegativeCounts() {
        Retry fresh = Retry.first(DOUBLING, 0);
        assertThrows(IllegalStateException.class, fresh::delay);
        assertThrows(IllegalStateException.class, () -> fresh.next(0, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Retry(DOUBLING, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Retry(null, 0, 0));
    }
}
