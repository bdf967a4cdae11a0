package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ProcessSample;
import java.util.List;

/**
 * One scan of the proc root.
 *
 * @param matched    the processes whose command line matched, sorted by pid
 * @param unreadable one line per process that matched (or may match) but could not be read; any entry
 *                   makes the observation unknown
 */
public record ProcessScan(List<ProcessSample> matched, List<String> unreadable) {
    public ProcessScan {
        matched = List.copyOf(matched);
        unreadable = List.copyOf(unreadable);
    }
}
