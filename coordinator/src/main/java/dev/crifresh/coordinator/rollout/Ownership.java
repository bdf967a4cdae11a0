package dev.crifresh.coordinator.rollout;

/** The value of {@code crifresh.dev/rollout}: {@code <runId>/<phase>}. */
public record Ownership(String runId, Phase phase) {

    /**
     * Parses an annotation value; null when absent. An unreadable phase is read as
     * {@link Phase#REBOOTING}: when in doubt whether a reboot was requested, wait for the node rather
     * than reboot it a second time.
     */
    public static Ownership parse(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        int slash = value.lastIndexOf('/');
        String runId = slash < 0 ? value : value.substring(0, slash);
        Phase phase = slash < 0 ? null : Phase.fromWire(value.substring(slash + 1));
        return new Ownership(runId, phase == null ? Phase.REBOOTING : phase);
    }

    @Override
    public String toString() {
        return runId + "/" + phase.wire();
    }
}
