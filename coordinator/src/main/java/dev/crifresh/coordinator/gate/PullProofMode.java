package dev.crifresh.coordinator.gate;

/** Which nodes get the runtime pull proof ({@code --pull-proof}). */
public enum PullProofMode {
    /** None. */
    OFF("off"),
    /** Every node crifresh rebooted, after it attests fresh. */
    REBOOTED("rebooted"),
    /** Those, and (read-only, before any reboot) every node skipped as fresh. */
    ALL("all");

    private final String wire;

    PullProofMode(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static PullProofMode fromWire(String value) {
        for (PullProofMode m : values()) {
            if (m.wire.equals(value)) {
                return m;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not off, rebooted or all");
    }
}
