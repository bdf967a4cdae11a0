package dev.crifresh.coordinator.classify;

/** A node's role: control plane when the label {@code node-role.kubernetes.io/control-plane} is present. */
public enum Role {
    WORKER("worker"),
    CONTROL_PLANE("control-plane");

    public static final String CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
