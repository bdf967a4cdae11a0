package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.BootClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * Estimates the wall-clock time of boot as {@code wall_now − uptime}. Each sample brackets one uptime
 * read between two wall-clock reads; the tightest bracket of several back-to-back samples wins.
 * {@code /proc/uptime} truncates to 10 ms, so the true boot time lies in
 * {@code [before − uptime − 10 ms, after − uptime]}: the estimate is that interval's middle and the
 * error is its full width (a bound on the estimate's distance from the truth).
 */
public final class BootClockSampler {
    public static final int DEFAULT_SAMPLES = 5;
    /** Resolution of {@code /proc/uptime}: the kernel prints centiseconds, truncated. */
    static final Duration UPTIME_RESOLUTION = Duration.ofMillis(10);

    private final HostClock clock;
    private final int samples;

    public BootClockSampler(HostClock clock, int samples) {
        if (samples < 1) {
            throw new IllegalArgumentException("samples must be at least 1");
        }
        this.clock = clock;
        this.samples = samples;
    }

    public BootClock sample() throws IOException {
        Instant bestLow = null;
        Duration bestWidth = null;
        for (int i = 0; i < samples; i++) {
            Instant before = clock.wallNow();
            Duration uptime = clock.uptime();
            Instant after = clock.wallNow();
            Duration bracket = Duration.between(before, after);
            if (bracket.isNegative()) {
                continue; // the wall clock stepped back between the two reads: this sample says nothing
            }
            Duration width = bracket.plus(UPTIME_RESOLUTION);
            if (bestWidth == null || width.compareTo(bestWidth) < 0) {
                bestWidth = width;
                bestLow = before.minus(uptime).minus(UPTIME_RESOLUTION);
            }
        }
        if (bestLow == null) {
            throw new IOException("the wall clock went backwards during every one of " + samples + " samples");
        }
        return new BootClock(bestLow.plus(bestWidth.dividedBy(2)), bestWidth);
    }
}
