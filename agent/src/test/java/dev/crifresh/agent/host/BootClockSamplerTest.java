package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.BootClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootClockSamplerTest {
    private static final Instant BOOT = Instant.parse("2025-03-01T10:00:00Z");

    /** Replays wall-clock reads; uptime is the true uptime at the middle of each bracket, truncated to 10 ms. */
    private static final class ScriptedClock implements HostClock {
        private final Deque<Instant> walls = new ArrayDeque<>();
        private final Deque<Duration> uptimes = new ArrayDeque<>();

        ScriptedClock sample(long beforeMs, long uptimeMs, long afterMs) {
            walls.add(BOOT.plusMillis(beforeMs));
            uptimes.add(Duration.ofMillis(uptimeMs));
            walls.add(BOOT.plusMillis(afterMs));
            return this;
        }

        @Override
        public Instant wallNow() {
            return walls.remove();
        }

        @Override
        public Duration uptime() {
            return uptimes.remove();
        }
    }

    @Test
    void keepsTheTightestBracketAndReportsItsWidthPlusUptimeResolution() throws IOException {
        ScriptedClock clock = new ScriptedClock()
                .sample(60_000, 60_000, 60_030)   // 30 ms bracket
                .sample(60_100, 60_100, 60_102)   // 2 ms bracket: the winner
                .sample(60_200, 60_200, 60_250);
        BootClock boot = new BootClockSampler(clock, 3).sample();
        assertEquals(Duration.ofMillis(12), boot.error());
        // The true boot lies in [60100 - 60100 - 10, 60102 - 60100] ms after BOOT; the estimate is the middle.
        assertEquals(BOOT.minusMillis(4), boot.bootWallTime());
        assertTrue(Duration.between(boot.bootWallTime(), BOOT).abs().compareTo(boot.error()) <= 0);
    }

    @Test
    void ignoresSamplesDuringWhichTheWallClockWentBack() throws IOException {
        ScriptedClock clock = new ScriptedClock()
                .sample(60_000, 60_000, 59_000)
                .sample(60_100, 60_100, 60_120);
        BootClock boot = new BootClockSampler(clock, 2).sample();
        assertEquals(Duration.ofMillis(30), boot.error());
        ScriptedClock allBack = new ScriptedClock().sample(60_000, 60_000, 59_000);
        assertThrows(IOException.class, () -> new BootClockSampler(allBack, 1).sample());
    }

    @Test
    void theRealClockGivesABootTimeWithinTensOfMilliseconds() throws IOException {
        BootClock boot = new BootClockSampler(HostClock.system(Path.of("/proc")), 5).sample();
        assertTrue(boot.error().compareTo(Duration.ofMillis(50)) < 0, "error " + boot.error());
        assertTrue(boot.bootWallTime().isBefore(Instant.now()));
    }

    @Test
    void parsesProcUptime(@TempDir Path proc) throws IOException {
        Files.writeString(proc.resolve("uptime"), "12345.67 23456.78\n");
        assertEquals(Duration.ofMillis(12_345_670), HostClock.system(proc).uptime());
        Files.writeString(proc.resolve("uptime"), "garbage");
        assertThrows(IOException.class, () -> HostClock.system(proc).uptime());
        assertEquals(Duration.ofSeconds(7), ProcUptimeClock.parse("7 1", proc));
        for (String bad : List.of("", "-1.00 2", "1.x 2")) {
            assertThrows(IOException.class, () -> ProcUptimeClock.parse(bad, proc), bad);
        }
    }
}
