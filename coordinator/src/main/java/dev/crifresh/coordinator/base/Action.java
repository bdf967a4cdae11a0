package dev.crifresh.coordinator.base;

/** What the coordinator does to a node whose containerd is stale or unknown. */
public enum Action {
    /** Cordon, drain, reboot through the {@link dev.crifresh.coordinator.driver.RebootDriver}, verify. */
    REBOOT("reboot"),
    /** Talos ≥ 1.14 restarts containerd itself on a CRI config change: only wait for fresh attestations. */
    NONE("none"),
    /**
     * Per node from the Talos version in the Node's {@code status.nodeInfo.osImage}: Talos ≥ 1.14 is waited for as
     * with {@link #NONE}, anything older or unreadable is rebooted as with {@link #REBOOT} (see {@link NodeAction}).
     */
    AUTO("auto");

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
        throw new IllegalArgumentException("unknown action '" + value + "' (expected reboot, none or auto)");
    }
}
