package dev.crifresh.common.text;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as operators write them on the command line: whole numbers with {@code ms}, {@code s},
 * {@code m} or {@code h}, one or more in a row ({@code 50ms}, {@code 5s}, {@code 10m}, {@code 1h30m}).
 */
public final class DurationText {
    /** What {@link #parse} accepts, for error messages. */
    public static final String ACCEPTED = "whole numbers with ms, s, m or h, e.g. 50ms, 5s, 10m, 1h30m";

    /** Nine digits per part keep every sum far from Duration's and long's limits. */
    private static final Pattern PART = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private DurationText() {
    }

    /** @throws IllegalArgumentException naming the value and the accepted forms */
    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim();
        Matcher m = PART.matcher(v);
        Duration total = Duration.ZERO;
        int at = 0;
        while (at < v.length() && m.find(at) && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms":
                    total = total.plusMillis(n);
                    break;
                case "s":
                    total = total.plusSeconds(n);
                    break;
                case "m":
                    total = total.plusMinutes(n);
                    break;
                default:
                    total = total.plusHours(n);
                    break;
            }
            at = m.end();
        }
        if (at == 0 || at != v.length()) {
            throw new IllegalArgumentException("'" + value + "' is not a duration (use " + ACCEPTED + ")");
        }
        return total;
    }

    /** The shortest exact form in one unit ({@code 50ms}, {@code 5s}, {@code 10m}, {@code 1h}); else milliseconds. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /**
     * A duration rounded for reading, as the demo and the condition messages show long ones: {@code 40 d},
     * {@code 3 h}, {@code 20 min} (from two minutes on), else seconds with one decimal ({@code 3.1 s}).
     * Negative durations keep their sign.
     */
    public static String approximate(Duration d) {
        double s = Math.abs(d.toMillis() / 1000.0);
        String sign = d.isNegative() ? "-" : "";
        if (s >= 86400) {
            return sign + String.format(Locale.ROOT, "%.0f d", s / 86400);
        }
        if (s >= 3600) {
            return sign + String.format(Locale.ROOT, "%.0f h", s / 3600);
        }
        if (s >= 120) {
            return sign + String.format(Locale.ROOT, "%.0f min", s / 60);
        }
        return sign + String.format(Locale.ROOT, "%.1f s", s);
    }
}
