package dev.crifresh.sim.scenario;

/** A node's role; control-plane nodes carry the label {@code node-role.kubernetes.io/control-plane}. */
public enum Role implements WireValue {
    WORKER("worker"),
    CONTROL_PLANE("control-plane");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
