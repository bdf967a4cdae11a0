package dev.crifresh.sim.node;

import dev.crifresh.agent.host.ChangeTimes;
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

    /**
     * A simulated node booted in a simulated past, but its files are written now: their real ctime would
     * be after the simulated containerd start. The simulation sets mtimes to the simulated instants, so
     * the mtime stands in for the ctime here (the real-ctime attacks are tested in the agent module).
     */
    @Override
    public ChangeTimes changeTimes() {
        return ChangeTimes.MTIME;
    }

    public Instant bootWallTime() {
        return bootWallTime;
    }
}
