package dev.crifresh.agent.testing;

import dev.crifresh.agent.host.HostClock;
import java.time.Duration;
import java.time.Instant;

/** A host that booted at a chosen wall time: real wall clock, uptime = now − boot. */
public record TestClock(Instant boot) implements HostClock {
    @Override
    public Instant wallNow() {
        return Instant.now();
    }

    @Override
    public Duration uptime() {
        return Duration.between(boot, Instant.now());
    }

    /** The {@code starttime} ticks of a process started at {@code at} on this host. */
    public long ticksAt(Instant at) {
        return Duration.between(boot, at).toMillis() / 10;
    }
}
