package dev.crifresh.common.evidence;

import java.time.Duration;

/**
 * @param margin    how much later than the newest config write containerd must have started (default 50 ms)
 * @param talosMode rule 2 on: configs live on tmpfs, so a write that seems to predate boot is a clock anomaly
 */
public record RuleSettings(Duration margin, boolean talosMode) {
    public static final Duration DEFAULT_MARGIN = Duration.ofMillis(50);

    /** A negative margin would let a config written after containerd started count as loaded. */
    public RuleSettings {
        if (margin == null || margin.isNegative()) {
            throw new IllegalArgumentException("margin must be zero or positive, got: " + margin);
        }
    }

    public static RuleSettings defaults() {
        return new RuleSettings(DEFAULT_MARGIN, true);
    }
}
