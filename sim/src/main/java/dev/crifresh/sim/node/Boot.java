package dev.crifresh.sim.node;

import java.time.Duration;
import java.time.Instant;

/**
 * One boot of a simulated node: its id, its wall-clock time, and the containerd processes it runs.
 *
 * @param criStartTicks the CRI containerd's {@code starttime}, clock ticks since this boot
 */
public record Boot(String bootId, Instant wallTime, long systemContainerdPid, long criPid, long criStartTicks) {

    public Boot withCriContainerd(long pid, long startTicks) {
        return new Boot(bootId, wallTime, systemContainerdPid, pid, startTicks);
    }

    /** The CRI containerd's start as a wall time. */
    public Instant criStartedAt() {
        return wallTime.plus(Duration.ofMillis(criStartTicks * (1000 / ProcFiles.CLK_TCK)));
    }
}
