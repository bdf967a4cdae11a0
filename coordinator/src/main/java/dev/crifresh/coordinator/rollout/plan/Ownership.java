package dev.crifresh.coordinator.rollout.plan;

/**
 * The value of {@code crifresh.dev/rollout}: {@code <runId>/<phase>}.
 *
 * @param phaseUnreadable the annotation's phase could not be read; {@link #phase()} is then
 *                        {@link Phase#REBOOTING}
 */
public record Ownership(String runId, Phase phase, boolean phaseUnreadable) {

    public Ownership(String runId, Phase phase) {
        this(runId, phase, false);
    }

    /**
     * Parses an annotation value; null when absent. An unreadable phase is read as
     * {@link Phase#REBOOTING} (flagged {@link #phaseUnreadable()}): when in doubt whether a reboot was
     * requested, never reboot the node a second time.
     */
    public static Ownership parse(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        int slash = value.lastIndexOf('/');
        String runId = slash < 0 ? value : value.substring(0, slash);
        Phase phase = slash < 0 ? null : Phase.fromWire(value.substring(slash + 1));
        return phase == null ? new Ownership(runId, Phase.REBOOTING, true) : new Ownership(runId, phase);
    }

    @Override
    public String toString() {
        return runId + "/" + phase.wire();
    }
}
