package dev.crifresh.archfixture.clock;

import java.time.Clock;
import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

public final class Clocks {
    public long nanos() {
        return System.nanoTime();
    }

    public Instant now() {
        return Instant.now();
    }

    public Instant nowOf(Clock clock) {
        return Instant.now(clock);
    }

    public Clock utc() {
        return Clock.systemUTC();
    }

    public LongSupplier nanosLater() {
        return System::nanoTime;
    }

    public Supplier<Instant> nowLater() {
        return Instant::now;
    }

    public Instant injected(Clock clock) {
        return clock.instant();
    }
}
