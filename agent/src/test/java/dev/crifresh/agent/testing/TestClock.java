package dev.crifresh.agent.testing;

import dev.crifresh.agent.host.ChangeTimes;
import dev.crifresh.agent.host.HostClock;
import java.time.Duration;
import java.time.Instant;

/**
 * A host that booted at a chosen wall time: real wall clock, uptime = now − boot. Its boot lies in a
 * chosen past, but its files are written now, so — like the simulator's — it takes a file's mtime as its
 * ctime (the real ctime is tested on real processes in {@code EvidenceAttacksRealProcTest}).
 */
public record TestClock(Instant boot) implements HostClock {
    @Override
    public Instant wallNow() {
        return Instant.now();
    }

    @Override
    public Duration uptime() {
        return Duration.between(boot, Instant.now());
    }

    @Override
    public ChangeTimes changeTimes() {
        return ChangeTimes.MTIME;
    }

    /** The {@code starttime} ticks of a process started at {@code at} on this host. */
    public long ticksAt(Instant at) {
        return Duration.between(boot, at).toMillis() / 10;
    }
}
