package dev.crifresh.common.attest;

import java.time.Instant;

/** JSON: {@code {"pid":..,"start_ticks":..,"clk_tck":..,"started_at":"RFC 3339"}}. */
public record ContainerdClaim(long pid, long startTicks, long clkTck, Instant startedAt) {
}
