package dev.crifresh.sim.scenario;

/**
 * The node's attestation before the run. {@code RUNNING}: a real agent. {@code ABSENT}: no condition and
 * no agent. The others are hostile or hung attestations written as real conditions; no agent runs for
 * such a node until it is rebooted.
 */
public enum AgentMode implements WireValue {
    RUNNING("running"),
    ABSENT("absent"),
    EXPIRED("expired"),
    FORGED("forged"),
    TAMPERED("tampered"),
    WRONG_NODE("wrong-node"),
    WRONG_BOOT("wrong-boot");

    private final String wire;

    AgentMode(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }

    /** Whether this mode is a condition written by something other than a live agent. */
    public boolean isHostile() {
        return this != RUNNING && this != ABSENT;
    }
}
