package dev.crifresh.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DurationTextTest {
    @Test
    void parsesWholeNumbersWithAUnit() {
        assertEquals(Duration.ofMillis(50), DurationText.parse("50ms"));
        assertEquals(Duration.ofSeconds(5), DurationText.parse("5s"));
        assertEquals(Duration.ofMinutes(10), DurationText.parse("10m"));
        assertEquals(Duration.ofHours(2), DurationText.parse("2h"));
        assertEquals(Duration.ZERO, DurationText.parse("0ms"));
        assertEquals(Duration.ofSeconds(30), DurationText.parse(" 30s "));
    }

    @Test
    void parsesSeveralPartsInARow() {
        assertEquals(Duration.ofMinutes(90), DurationText.parse("1h30m"));
        assertEquals(Duration.ofMillis(2_500), DurationText.parse("2s500ms"));
        assertEquals(Duration.ofSeconds(3_600 + 60 + 1), DurationText.parse("1h1m1s"));
    }

    @Test
    void rejectsEverythingElseNamingTheValueAndTheAcceptedForms() {
        for (String bad : List.of("", " ", "5", "30", "5 m", "-5s", "1.5s", "5min", "PT5M", "pt5m", "ms", "5S",
                "9999999999s", "1h 30m", "1h30", "h1", "5sx", "5s-")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DurationText.parse(bad), bad);
            assertEquals("'" + bad + "' is not a duration (use " + DurationText.ACCEPTED + ")", e.getMessage());
        }
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> DurationText.parse(null));
        assertTrue(nul.getMessage().contains("ms, s, m or h"), nul.getMessage());
    }

    @Test
    void formatsInTheLargestExactUnit() {
        assertEquals("50ms", DurationText.format(Duration.ofMillis(50)));
        assertEquals("5s", DurationText.format(Duration.ofSeconds(5)));
        assertEquals("90s", DurationText.format(Duration.ofSeconds(90)));
        assertEquals("10m", DurationText.format(Duration.ofMinutes(10)));
        assertEquals("15m", DurationText.format(Duration.ofMinutes(15)));
        assertEquals("1h", DurationText.format(Duration.ofHours(1)));
        assertEquals("90m", DurationText.format(Duration.ofMinutes(90)));
        assertEquals("1500ms", DurationText.format(Duration.ofMillis(1_500)));
        assertEquals("0ms", DurationText.format(Duration.ZERO));
    }

    @Test
    void formatThenParseIsTheIdentity() {
        for (Duration d : List.of(Duration.ofMillis(1), Duration.ofMillis(300), Duration.ofSeconds(59),
                Duration.ofMinutes(61), Duration.ofHours(25))) {
            assertEquals(d, DurationText.parse(DurationText.format(d)), d.toString());
        }
    }

    @Test
    void approximatesForReading() {
        assertEquals("40 d", DurationText.approximate(Duration.ofMillis(3_453_794_204L)));
        assertEquals("3 h", DurationText.approximate(Duration.ofMinutes(190)));
        assertEquals("20 min", DurationText.approximate(Duration.ofMinutes(20)));
        assertEquals("2 min", DurationText.approximate(Duration.ofSeconds(120)));
        assertEquals("119.0 s", DurationText.approximate(Duration.ofSeconds(119)));
        assertEquals("3.1 s", DurationText.approximate(Duration.ofMillis(3_120)));
        assertEquals("-40 d", DurationText.approximate(Duration.ofDays(-40)));
    }
}
