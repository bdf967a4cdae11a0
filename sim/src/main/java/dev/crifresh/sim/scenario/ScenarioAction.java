package dev.crifresh.sim.scenario;

/**
 * The coordinator's action: reboot stale nodes, or (Talos >= 1.14) only wait for them to turn fresh, or decide per
 * node from its Talos version.
 */
public enum ScenarioAction implements WireValue {
    REBOOT("reboot"),
    NONE("none"),
    AUTO("auto");

    private final String wire;

    ScenarioAction(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
