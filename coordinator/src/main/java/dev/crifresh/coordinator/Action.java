package dev.crifresh.coordinator;

/** What the coordinator does to a node whose containerd is stale or unknown. */
public enum Action {
    /** Cordon, drain, reboot through the {@link dev.crifresh.coordinator.driver.RebootDriver}, verify. */
    REBOOT("reboot"),
    /** Talos ≥ 1.14 restarts containerd itself on a CRI config change: only wait for fresh attestations. */
    NONE("none");

    private final String wire;

    Action(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Action fromWire(String value) {
        for (Action a : values()) {
            if (a.wire.equals(value)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown action '" + value + "' (expected reboot or none)");
    }
}
