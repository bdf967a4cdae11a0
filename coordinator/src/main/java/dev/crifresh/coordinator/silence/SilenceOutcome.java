package dev.crifresh.coordinator.silence;

import java.util.List;

/**
 * What one create or expire did. {@code silenceIds}: the silence created, or the silences expired.
 * {@code message}: one line for the log, the report and an Event; for a warning it names the Alertmanager URL.
 */
public record SilenceOutcome(String node, Kind kind, List<String> silenceIds, String message) {
    public enum Kind { CREATED, EXPIRED, NOTHING, WARNING }

    public SilenceOutcome {
        silenceIds = List.copyOf(silenceIds);
    }

    public boolean isWarning() {
        return kind == Kind.WARNING;
    }

    static SilenceOutcome nothing(String node, String why) {
        return new SilenceOutcome(node, Kind.NOTHING, List.of(), why);
    }

    static SilenceOutcome warning(String node, String message) {
        return new SilenceOutcome(node, Kind.WARNING, List.of(), message);
    }
}
