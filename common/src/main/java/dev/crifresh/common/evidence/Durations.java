package dev.crifresh.common.evidence;

import java.math.BigDecimal;
import java.math.RoundingMode;
import dev.crifresh.common.text.DurationText;
import java.time.Duration;

/**
 * Durations as people read them in a condition message: "2.950 s", "50 ms", "0.000001 ms"; from two minutes
 * on also rounded, as the demo shows them: "3453794.204 s (40 d)".
 */
final class Durations {
    private static final Duration ROUNDED_FROM = Duration.ofMinutes(2);

    private Durations() {
    }

    /** A duration as text; sub-second values in milliseconds, exact to the nanosecond. */
    static String text(Duration d) {
        BigDecimal nanos = new BigDecimal(d.getSeconds()).movePointRight(9).add(BigDecimal.valueOf(d.getNano()));
        if (nanos.abs().compareTo(BigDecimal.ONE.movePointRight(9)) < 0) {
            BigDecimal ms = nanos.movePointLeft(6).stripTrailingZeros();
            return (ms.signum() == 0 ? "0" : ms.toPlainString()) + " ms";
        }
        String exact = nanos.movePointLeft(9).setScale(3, RoundingMode.DOWN).toPlainString() + " s";
        return d.abs().compareTo(ROUNDED_FROM) >= 0 ? exact + " (" + DurationText.approximate(d) + ")" : exact;
    }
}
