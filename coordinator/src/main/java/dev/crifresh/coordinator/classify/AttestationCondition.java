package dev.crifresh.coordinator.classify;

/**
 * The {@code ContainerdConfigFresh} condition as found on a Node.
 *
 * @param entries how many conditions of that type the Node has; more than one means none is trusted
 *                (the fields then hold the first entry, for display only)
 */
public record AttestationCondition(String status, String reason, String message, int entries) {

    public AttestationCondition(String status, String reason, String message) {
        this(status, reason, message, 1);
    }

    /** Whether the Node has more than one condition of this type. */
    public boolean duplicated() {
        return entries > 1;
    }

    AttestationCondition withAnotherEntry() {
        return new AttestationCondition(status, reason, message, entries + 1);
    }
}
