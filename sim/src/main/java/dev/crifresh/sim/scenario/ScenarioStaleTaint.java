package dev.crifresh.sim.scenario;

/** The coordinator's {@code --stale-taint}: the taint on stale nodes before the first drain, or off. */
public enum ScenarioStaleTaint implements WireValue {
    PREFER_NO_SCHEDULE("PreferNoSchedule"),
    NO_SCHEDULE("NoSchedule"),
    OFF("off");

    private final String wire;

    ScenarioStaleTaint(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
