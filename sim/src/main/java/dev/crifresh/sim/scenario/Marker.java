package dev.crifresh.sim.scenario;

/** The machine-config marker annotation on the Node: reported by the coordinator, never trusted. */
public enum Marker implements WireValue {
    CURRENT("current"),
    STALE("stale"),
    ABSENT("absent");

    private final String wire;

    Marker(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
