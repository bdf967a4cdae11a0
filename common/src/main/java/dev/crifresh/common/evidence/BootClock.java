package dev.crifresh.common.evidence;

import java.time.Duration;
import java.time.Instant;

/**
 * The wall-clock time of boot, {@code wall_now − uptime}, from the tightest of several back-to-back
 * samples, and the error bound of that estimate (the width of the tightest sample pair).
 */
public record BootClock(Instant bootWallTime, Duration error) {

    /** A wall-clock instant expressed as time since boot (negative = before boot). */
    public Duration sinceBoot(Instant wall) {
        return Duration.between(bootWallTime, wall);
    }
}
