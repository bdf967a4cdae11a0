package dev.crifresh.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The converter only adapts DurationText (tested in common) to picocli. */
class DurationConverterTest {
    private final DurationConverter converter = new DurationConverter();

    @Test
    void convertsTheAgentDefaults() {
        assertEquals(Duration.ofMillis(50), converter.convert("50ms"));
        assertEquals(Duration.ofSeconds(5), converter.convert("5s"));
        assertEquals(Duration.ofMinutes(5), converter.convert("5m"));
        assertEquals(Duration.ofMinutes(15), converter.convert("15m"));
        assertEquals(Duration.ofHours(2), converter.convert("2h"));
    }

    @Test
    void aBadValueIsATypeConversionErrorNamingIt() {
        for (String bad : List.of("", "5", "5 m", "-5s", "1.5s", "5min", "PT5M", "ms", "5S", "9999999999s")) {
            CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                    () -> converter.convert(bad), bad);
            assertEquals("'" + bad + "' is not a duration (use whole numbers with ms, s, m or h, e.g. 50ms, 5s, 10m, 1h30m)",
                    e.getMessage());
        }
    }
}
