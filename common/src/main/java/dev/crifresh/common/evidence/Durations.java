package dev.crifresh.common.evidence;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/** Durations as people read them in a condition message: "2.950 s", "50 ms", "0.000001 ms". */
final class Durations {
    private Durations() {
    }

    /** A duration as text; sub-second values in milliseconds, exact to the nanosecond. */
    static String text(Duration d) {
        BigDecimal nanos = new BigDecimal(d.getSeconds()).movePointRight(9).add(BigDecimal.valueOf(d.getNano()));
        if (nanos.abs().compareTo(BigDecimal.ONE.movePointRight(9)) < 0) {
            BigDecimal ms = nanos.movePointLeft(6).stripTrailingZeros();
            return (ms.signum() == 0 ? "0" : ms.toPlainString()) + " ms";
        }
        return nanos.movePointLeft(9).setScale(3, RoundingMode.DOWN).toPlainString() + " s";
    }
}
