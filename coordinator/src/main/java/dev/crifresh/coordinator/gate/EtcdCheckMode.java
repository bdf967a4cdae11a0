package dev.crifresh.coordinator.gate;

/** How the etcd gate learns the health of etcd ({@code --etcd-check}). */
public enum EtcdCheckMode {
    /** {@code talosctl -n <every control-plane IP> etcd status | members | alarm list}, parsed. */
    TALOSCTL("talosctl"),
    /** {@code --etcd-command}: exit 0 means healthy. */
    COMMAND("command"),
    /** Not checked (a warning says so). */
    NONE("none");

    private final String wire;

    EtcdCheckMode(String wire) {
        this.wire = wire;
    }

    public static EtcdCheckMode fromWire(String value) {
        for (EtcdCheckMode m : values()) {
            if (m.wire.equals(value)) {
                return m;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not talosctl, command or none");
    }
}
