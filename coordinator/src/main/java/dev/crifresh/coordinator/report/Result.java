package dev.crifresh.coordinator.report;

/** The run's result. */
public enum Result {
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    /** The run lost the rollout Lease and stopped at once, leaving the nodes it owned for the next run (exit 4). */
    LEASE_LOST("lease-lost"),
    PLANNED("planned");

    private final String wire;

    Result(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
