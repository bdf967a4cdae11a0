package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crifresh.common.evidence.ContainerdMatcher;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the parsing of {@code /proc/<pid>/stat} and {@code /proc/<pid>/cmdline}. Four modes, chosen by
 * the first input byte:
 * <ul>
 * <li>raw stat: any text; {@link ProcStat} returns a non-negative start time that is a word after the last
 * {@code ')'}, or throws {@link IllegalArgumentException} — nothing else;</li>
 * <li>built stat: a kernel-shaped line with a fuzzed {@code comm} (spaces, parentheses, anything but NUL,
 * at most 15 bytes as the kernel keeps) and a fuzzed start time; both must be read back exactly;</li>
 * <li>cmdline: fuzzed argv; NUL-joined and split again it is the same list, and a command line that names
 * the system containerd's address last is never the CRI containerd;</li>
 * <li>raw cmdline bytes (and every cmdline above): the scan's program-name prefilter never rules out a
 * command line the matcher does not say No to.</li>
 * </ul>
 */
class ProcEntryFuzzTest {
    private static final ContainerdMatcher CRI = ContainerdMatcher.talosCri();
    private static final long MAX_FIELD = Long.MAX_VALUE / 2;

    @FuzzTest(maxDuration = "30s")
    void parse(FuzzedDataProvider data) {
        switch (data.consumeInt(0, 3)) {
            case 0 -> rawStat(data.consumeRemainingAsString());
            case 1 -> builtStat(data);
            case 2 -> programPrefilterNeverHidesAMatch(data.consumeRemainingAsBytes());
            default -> cmdline(data);
        }
    }

    private static void rawStat(String line) {
        long ticks;
        try {
            ticks = ProcStat.startTicks(line);
        } catch (IllegalArgumentException e) {
            return;
        }
        assertTrue(ticks >= 0, "a negative start time");
        String afterComm = line.substring(line.lastIndexOf(')') + 1);
        assertTrue(List.of(afterComm.trim().split("\\s+")).stream().anyMatch(word -> parsesTo(word, ticks)),
                () -> "start time " + ticks + " is not a word after the comm");
    }

    private static boolean parsesTo(String word, long value) {
        try {
            return Long.parseLong(word) == value;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static void builtStat(FuzzedDataProvider data) {
        String comm = kernelComm(data.consumeString(15));
        // Jazzer 0.24's consumeLong(0, Long.MAX_VALUE) can return negative numbers (its range overflows).
        long start = data.consumeLong(0, MAX_FIELD);
        StringBuilder line = new StringBuilder().append(data.consumeInt(1, 4_194_304)).append(" (").append(comm)
                .append(") ").append("SRDZTI".charAt(data.consumeInt(0, 5)));
        for (int field = 4; field <= 52; field++) {
            line.append(' ').append(field == 22 ? start : data.consumeLong(0, MAX_FIELD));
        }
        line.append('\n');
        assertEquals(start, ProcStat.startTicks(line.toString()), "starttime of " + line);
        assertEquals(comm, ProcStat.comm(line.toString()), "comm of " + line);
    }

    /** The kernel keeps at most 15 bytes of comm, never a NUL. */
    private static String kernelComm(String fuzzed) {
        String comm = fuzzed.replace('\0', '?');
        while (comm.getBytes(StandardCharsets.UTF_8).length > 15) {
            comm = comm.substring(0, comm.length() - 1);
        }
        return comm;
    }

    /**
     * The scan rules a process out by its program name alone ({@link ProcessScanner#mayBeContainerd}): that
     * must never hide a command line the matcher would not say No to, whatever the buffer size.
     */
    private static void programPrefilterNeverHidesAMatch(byte[] raw) {
        ContainerdMatcher.Match match = CRI.match(ProcessScanner.splitNul(raw));
        for (int size : new int[] {1, 7, 11, 1024}) {
            boolean maybe;
            try {
                maybe = ProcessScanner.mayBeContainerd(new ByteArrayInputStream(raw), new byte[size]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (!maybe) {
                assertTrue(match instanceof ContainerdMatcher.No, () -> "ruled out by its program but the matcher"
                        + " says " + match + ": " + ProcessScanner.splitNul(raw));
            }
        }
    }

    private static boolean roundTripsUtf8(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
    }

    private static void cmdline(FuzzedDataProvider data) {
        List<String> argv = new ArrayList<>();
        int count = data.consumeInt(1, 8);
        for (int i = 0; i < count; i++) {
            argv.add(data.consumeString(40).replace('\0', ' '));
        }
        if (argv.stream().anyMatch(a -> a.isEmpty() || !roundTripsUtf8(a))) {
            return; // the kernel's bytes are UTF-8 here; an empty last argument is indistinguishable from the end
        }
        byte[] raw = (String.join("\0", argv) + "\0").getBytes(StandardCharsets.UTF_8);
        List<String> split = ProcessScanner.splitNul(raw);
        assertEquals(argv, split, "argv after a NUL join and split");
        programPrefilterNeverHidesAMatch(raw);
        boolean cri = CRI.matches(split);
        List<String> system = new ArrayList<>(split);
        system.add("--address");
        system.add("/system/run/containerd/containerd.sock");
        assertFalse(CRI.matches(system), () -> "the system containerd matched: " + system);
        if (cri) {
            assertEquals("containerd", split.get(0).substring(split.get(0).lastIndexOf('/') + 1), "program of a match");
        }
    }
}
