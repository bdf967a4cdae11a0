package dev.crifresh.coordinator.report;

/** The run's result. */
public enum Result {
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    PLANNED("planned");

    private final String wire;

    Result(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
