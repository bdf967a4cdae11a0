package dev.crifresh.coordinator.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h30m}, a number of seconds, or ISO-8601 ({@code PT5M}). */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim();
        if (v.matches("\\d+")) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        if (v.toUpperCase().startsWith("PT")) {
            try {
                return Duration.parse(v.toUpperCase());
            } catch (DateTimeParseException e) {
                throw bad(value);
            }
        }
        Matcher m = PART.matcher(v);
        Duration total = Duration.ZERO;
        int at = 0;
        while (m.find() && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            });
            at = m.end();
        }
        if (at == 0 || at != v.length()) {
            throw bad(value);
        }
        return total;
    }

    private static CommandLine.TypeConversionException bad(String value) {
        return new CommandLine.TypeConversionException("'" + value + "' is not a duration like 500ms, 30s, 10m or 1h");
    }
}
