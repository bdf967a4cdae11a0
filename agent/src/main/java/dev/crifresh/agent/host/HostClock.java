package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The agent's only source of time: the wall clock and the time since boot. Production reads
 * {@code <procRoot>/uptime}; the simulator supplies a clock whose uptime comes from a simulated boot.
 */
public interface HostClock {

    Instant wallNow();

    /** Time since boot, including time spent suspended (the clock {@code /proc/<pid>/stat} start times use). */
    Duration uptime() throws IOException;

    /**
     * The files' change times, stamped by the kernel's clock: the real ctime, except on a simulated
     * host whose boot lies in a simulated past.
     */
    default ChangeTimes changeTimes() {
        return ChangeTimes.KERNEL;
    }

    /** The real clock: {@link Instant#now()} and the first field of {@code <procRoot>/uptime}. */
    static HostClock system(Path procRoot) {
        return new ProcUptimeClock(procRoot.resolve("uptime"));
    }
}
