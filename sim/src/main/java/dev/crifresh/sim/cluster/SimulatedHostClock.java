package dev.crifresh.sim.cluster;

import dev.crifresh.agent.host.HostClock;
import java.time.Duration;
import java.time.Instant;

/**
 * The agent's clock on a simulated node: the real wall clock, and an uptime measured from the simulated
 * boot's wall time, so {@code wall_now − uptime} is exactly that boot. One instance per boot.
 */
public final class SimulatedHostClock implements HostClock {
    private final Instant bootWallTime;

    public SimulatedHostClock(Instant bootWallTime) {
        this.bootWallTime = bootWallTime;
    }

    public Instant wallNow() {
        return Instant.now();
    }

    public Duration uptime() {
        return Duration.between(bootWallTime, Instant.now());
    }

    public Instant bootWallTime() {
        return bootWallTime;
    }
}
