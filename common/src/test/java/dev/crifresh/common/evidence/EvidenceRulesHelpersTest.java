package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.ms;
import static dev.crifresh.common.evidence.Given.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The rules' small helpers: clock ticks, durations as text, host text on one line, the settings. */
class EvidenceRulesHelpersTest {
    static Stream<Arguments> tickConversions() {
        return Stream.of(
                Arguments.of(500, 100, Duration.ofSeconds(5)),
                Arguments.of(1, 100, ms(10)),
                Arguments.of(0, 100, Duration.ZERO),
                Arguments.of(1, 3, ns(333_333_333)),
                Arguments.of(2, 3, ns(666_666_666)),
                Arguments.of(1251, 250, ms(5004)),
                Arguments.of(Long.MAX_VALUE, 100, Duration.ofSeconds(Long.MAX_VALUE / 100, 70_000_000)),
                Arguments.of(999_999_999_999L, 1_000_000_000_000L, ns(999_999_999)));
    }

    @ParameterizedTest(name = "{0} ticks at {1}/s = {2}")
    @MethodSource("tickConversions")
    void ticksConvertExactlyAndRoundDown(long ticks, long clkTck, Duration expected) {
        assertEquals(expected, EvidenceRules.ticksSinceBoot(ticks, clkTck));
    }

    @ParameterizedTest(name = "{0} ns → {1}")
    @CsvSource({
            "2950000000, 2.950 s",
            "1000000000, 1.000 s",
            "61999999999, 61.999 s",
            "119999999999, 119.999 s",
            "120000000000, 120.000 s (2 min)",
            "3453794204000000, 3453794.204 s (40 d)",
            "-7380120000000, -7380.120 s (-2 h)",
            "50000000, 50 ms",
            "40500000, 40.5 ms",
            "1, 0.000001 ms",
            "0, 0 ms",
            "999999999, 999.999999 ms",
            "-30000000, -30 ms"})
    void durationsReadAsPeopleWriteThem(long nanos, String expected) {
        assertEquals(expected, Durations.text(Duration.ofNanos(nanos)));
    }

    @Test
    void oneLineFlattensAndShortensHostText() {
        assertEquals("a b c", EvidenceRules.oneLine(" a\nb\r\n\tc "));
        String longText = "x".repeat(500);
        assertEquals(200, EvidenceRules.oneLine(longText).length());
    }

    @Test
    void settingsRejectANegativeOrMissingMargin() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RuleSettings(ms(-1), true));
        assertTrue(e.getMessage().contains("margin"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RuleSettings(null, false));
        assertEquals(Duration.ZERO, new RuleSettings(Duration.ZERO, false).margin());
        assertEquals(new RuleSettings(ms(50), true), RuleSettings.defaults());
    }
}
