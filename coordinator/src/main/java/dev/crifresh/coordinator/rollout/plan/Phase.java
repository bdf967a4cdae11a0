package dev.crifresh.coordinator.rollout.plan;

/** The phase written into the ownership annotation {@code crifresh.dev/rollout=<runId>/<phase>}. */
public enum Phase {
    /** Owned and cordoned; pods are being evicted. Not rebooted yet: a rerun starts the node over. */
    DRAINING("draining"),
    /** The reboot was (about to be) requested; {@code crifresh.dev/boot-id} holds the boot id before it. */
    REBOOTING("rebooting"),
    /** Back with a new boot id; waiting for a fresh attestation from that boot. */
    VERIFYING("verifying");

    private final String wire;

    Phase(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** Whether a reboot may already have happened: a rerun must then wait for the node, not reboot it. */
    public boolean mayHaveRebooted() {
        return this != DRAINING;
    }

    public static Phase fromWire(String value) {
        for (Phase p : values()) {
            if (p.wire.equals(value)) {
                return p;
            }
        }
        return null;
    }
}
