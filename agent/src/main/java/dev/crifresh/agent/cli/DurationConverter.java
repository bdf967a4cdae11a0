package dev.crifresh.agent.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations as operators write them: {@code 50ms}, {@code 5s}, {@code 5m}, {@code 1h}. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        Matcher m = FORMAT.matcher(value == null ? "" : value.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration (use a whole number with ms, s, m or h, e.g. 50ms, 5s, 5m)");
        }
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
            case "ms":
                return Duration.ofMillis(n);
            case "s":
                return Duration.ofSeconds(n);
            case "m":
                return Duration.ofMinutes(n);
            default:
                return Duration.ofHours(n);
        }
    }

    /** The inverse, for messages: the largest unit that represents the duration exactly. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0 && ms > 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
