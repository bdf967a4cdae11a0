package dev.crifresh.agent.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void doublesUpToTheMaximumWithJitterBetweenHalfAndAll() {
        Backoff low = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.0);
        Backoff high = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.999_999);
        long[] ceilings = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000};
        for (int attempt = 1; attempt <= ceilings.length; attempt++) {
            long ceiling = ceilings[attempt - 1];
            assertEquals(ceiling / 2, low.delay(attempt).toMillis(), "attempt " + attempt);
            assertEquals(ceiling - 1, high.delay(attempt).toMillis(), "attempt " + attempt);
        }
        assertEquals(15_000, low.delay(1000).toMillis(), "no overflow for long outages");
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), Math::random));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), Math::random));
    }
}
