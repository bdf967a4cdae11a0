package dev.crifresh.coordinator.classify;

/** The coordinator's view of one node (docs/coordinator.md, "Classification"). */
public enum NodeVerdict {
    /** Valid attestation: containerd loaded the current config, which holds the desired credential. */
    FRESH("fresh"),
    /** Valid attestation: containerd runs an older config than the one on disk. */
    STALE("stale"),
    /** Valid attestation, but the config on disk does not hold the desired credential yet. */
    CONFIG_PENDING("config-pending"),
    /** No trustworthy attestation, or the agent itself cannot tell. */
    UNKNOWN("unknown");

    private final String wire;

    NodeVerdict(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** Stale and unknown nodes are rebooted; fresh ones skipped; config-pending ones waited for. */
    public boolean needsReboot() {
        return this == STALE || this == UNKNOWN;
    }
}
