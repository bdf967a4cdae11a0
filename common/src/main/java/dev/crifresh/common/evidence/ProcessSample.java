package dev.crifresh.common.evidence;

import java.util.List;

/**
 * One process read from {@code /proc/<pid>}: its pid, field 22 of {@code stat} (start time in clock
 * ticks since boot) and its NUL-separated command line.
 */
public record ProcessSample(long pid, long startTicks, List<String> cmdline) {
    public ProcessSample {
        cmdline = List.copyOf(cmdline);
    }
}
