package dev.crifresh.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DurationConverterTest {
    @Test
    void parsesTheUnitsOperatorsWrite() {
        assertEquals(Duration.ofMillis(50), DurationConverter.parse("50ms"));
        assertEquals(Duration.ofSeconds(5), DurationConverter.parse("5s"));
        assertEquals(Duration.ofMinutes(5), DurationConverter.parse("5m"));
        assertEquals(Duration.ofMinutes(15), DurationConverter.parse("15m"));
        assertEquals(Duration.ofHours(2), DurationConverter.parse("2h"));
        assertEquals(Duration.ZERO, DurationConverter.parse("0ms"));
    }

    @Test
    void rejectsEverythingElse() {
        for (String bad : List.of("", "5", "5 m", "-5s", "1.5s", "5min", "PT5M", "ms", "5S", "9999999999s")) {
            CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                    () -> DurationConverter.parse(bad), bad);
            assertEquals(true, e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void formatsWithTheLargestExactUnit() {
        assertEquals("15m", DurationConverter.format(Duration.ofMinutes(15)));
        assertEquals("90s", DurationConverter.format(Duration.ofSeconds(90)));
        assertEquals("1h", DurationConverter.format(Duration.ofHours(1)));
        assertEquals("50ms", DurationConverter.format(Duration.ofMillis(50)));
        assertEquals("0ms", DurationConverter.format(Duration.ZERO));
    }
}
