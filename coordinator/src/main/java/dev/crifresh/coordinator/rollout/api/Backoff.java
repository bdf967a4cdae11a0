package dev.crifresh.coordinator.rollout.api;

import java.time.Duration;

/** Doubling delays between two bounds, for retrying PDB-blocked evictions and transient API errors. */
public final class Backoff {
    private final long maxMillis;
    private long nextMillis;

    Backoff(Duration initial, Duration max) {
        this.nextMillis = Math.max(1, initial.toMillis());
        this.maxMillis = Math.max(nextMillis, max.toMillis());
    }

    /** Scaled to a drain timeout: starts at 1/20 of it (10 ms – 500 ms), caps at 1/4 (up to 10 s). */
    public static Backoff forTimeout(Duration timeout) {
        long t = timeout.toMillis();
        long initial = Math.min(500, Math.max(10, t / 20));
        long max = Math.min(10_000, Math.max(initial, t / 4));
        return new Backoff(Duration.ofMillis(initial), Duration.ofMillis(max));
    }

    public long next() {
        long d = nextMillis;
        nextMillis = Math.min(maxMillis, nextMillis * 2);
        return d;
    }
}
