package dev.crifresh.sim.scenario;

/** What a node does when it is told to reboot. */
public enum RebootBehaviour implements WireValue {
    OK("ok"),
    NEVER_RETURNS("never-returns");

    private final String wire;

    RebootBehaviour(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
