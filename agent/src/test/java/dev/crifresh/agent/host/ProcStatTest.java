package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.mockapi.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProcStatTest {
    private static final String REST =
            " S 1 1234 1234 0 -1 4194560 1500 0 0 0 12 34 0 0 20 0 11 0 987654 123456789 2000 18446744073709551615";

    @Test
    void readsField22AfterTheLastParenthesis() {
        assertEquals(987654, ProcStat.startTicks("4242 (containerd)" + REST));
    }

    @Test
    void commWithSpacesAndParenthesesDoesNotShiftTheFields() {
        assertEquals(987654, ProcStat.startTicks("4242 (a) b (c) 1 2 3)" + REST));
        assertEquals(987654, ProcStat.startTicks("4242 ( ) ))" + REST));
    }

    @Test
    void rejectsLinesThatAreNotStatLines() {
        assertThrows(IllegalArgumentException.class, () -> ProcStat.startTicks("no parentheses 1 2 3"));
        assertThrows(IllegalArgumentException.class, () -> ProcStat.startTicks("1 (x) S 1 2"));
        assertThrows(IllegalArgumentException.class,
                () -> ProcStat.startTicks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 notanumber 0"));
    }

    @Test
    void parsesTheRealStatOfAProcessWhoseCommHasSpacesAndParentheses() throws Exception {
        try (FakeContainerd p = FakeContainerd.start(FakeContainerd.TALOS_CRI, "x) (y z")) {
            Path stat = Path.of("/proc", Long.toString(p.pid()), "stat");
            // the stand-in is a copy of sleep named "x) (y z": the kernel took its comm from the file name
            String line = Poll.until(Duration.ofSeconds(10), "comm renamed", () -> read(stat),
                    l -> l.contains("(x) (y z)"));
            long expected = Long.parseLong(line.substring(line.lastIndexOf(')') + 2).split(" ")[19]);
            assertEquals(expected, ProcStat.startTicks(line));
            assertEquals(expected, new ProcessScanner(Path.of("/proc")).startTicks(p.pid()).orElseThrow());
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
