package dev.crifresh.coordinator.rollout.api;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.fixture.ManualTicker;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
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

    @Test
    void aTransientErrorIsRetriedWithBackoffOnTheTickersTime() {
        ManualTicker ticker = new ManualTicker();
        AtomicInteger calls = new AtomicInteger();
        Future<String> result = new ApiRetry(ticker, Fence.open(), LEASE).call(() -> calls.incrementAndGet() < 4
                ? Future.failedFuture(new KubernetesClientException("unavailable", 503, null))
                : Future.succeededFuture("ok"));
        assertEquals(1, calls.get());
        ticker.advance(Duration.ofMillis(99));
        assertEquals(1, calls.get(), "the first retry waits 100 ms");
        ticker.advance(Duration.ofMillis(1 + 200 + 400));
        assertEquals("ok", result.result());
        assertEquals(4, calls.get());
    }

    @Test
    void aRunThatMayNoLongerWriteStopsRetrying() {
        ManualTicker ticker = new ManualTicker();
        boolean[] held = {true};
        Fence lease = Fence.of(() -> held[0]);
        AtomicInteger calls = new AtomicInteger();
        Future<String> result = new ApiRetry(ticker, lease, LEASE).call(() -> {
            calls.incrementAndGet();
            return Future.failedFuture(new KubernetesClientException("unavailable", 503, null));
        });
        held[0] = false;
        ticker.advance(Duration.ofSeconds(10));
        assertTrue(result.failed());
        assertEquals(1, calls.get(), "no call is sent once the hold ended");
        assertEquals(0, ticker.pending());
    }
}
