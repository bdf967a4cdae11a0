package dev.crifresh.common.evidence;

/** What the agent concluded about the running containerd. Anything but FRESH leads to a reboot. */
public enum Verdict {
    FRESH("fresh", "True"),
    STALE("stale", "False"),
    UNKNOWN("unknown", "Unknown");

    private final String wire;
    private final String conditionStatus;

    Verdict(String wire, String conditionStatus) {
        this.wire = wire;
        this.conditionStatus = conditionStatus;
    }

    /** The value used in claims and JSON output: fresh, stale, unknown. */
    public String wire() {
        return wire;
    }

    /** The Node condition status this verdict is published as: True, False, Unknown. */
    public String conditionStatus() {
        return conditionStatus;
    }
}
