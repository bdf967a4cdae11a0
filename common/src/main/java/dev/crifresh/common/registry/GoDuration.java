package dev.crifresh.common.registry;

import java.math.BigDecimal;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether Go's {@code time.ParseDuration} (src/time/format.go) accepts a text: an optional sign, then one or more
 * decimal numbers each with a unit ({@code ns}, {@code us}, {@code µs}, {@code μs}, {@code ms}, {@code s}, {@code m},
 * {@code h}), or {@code 0} alone; it fails on anything else and on a value beyond about 292 years. The agent
 * accepts a subset and calls the rest what it is: a text outside the grammar is {@link Verdict#INVALID}, a value
 * near the overflow bound {@link Verdict#UNSURE}.
 */
final class GoDuration {
    enum Verdict { VALID, INVALID, UNSURE }

    private static final Pattern WHOLE = Pattern.compile("[-+]?(?:(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+");
    private static final Pattern PART = Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)");
    private static final Map<String, Long> NANOS = Map.of("ns", 1L, "us", 1_000L, "\u00b5s", 1_000L, "\u03bcs", 1_000L,
            "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);
    /** Well inside Go's int64 nanoseconds: a value beyond it may or may not overflow in Go's arithmetic. */
    private static final BigDecimal SURE_BOUND = BigDecimal.valueOf(1L << 62);

    private GoDuration() {
    }

    static Verdict parse(String text) {
        if (text.equals("0") || text.equals("+0") || text.equals("-0")) {
            return Verdict.VALID;
        }
        if (!WHOLE.matcher(text).matches()) {
            return Verdict.INVALID;
        }
        BigDecimal total = BigDecimal.ZERO;
        Matcher m = PART.matcher(text);
        while (m.find()) {
            String number = m.group(1);
            total = total.add(new BigDecimal(number.endsWith(".") ? number + "0" : number.startsWith(".") ? "0" + number
                    : number).multiply(BigDecimal.valueOf(NANOS.get(m.group(2)))));
        }
        return total.compareTo(SURE_BOUND) < 0 ? Verdict.VALID : Verdict.UNSURE;
    }
}
