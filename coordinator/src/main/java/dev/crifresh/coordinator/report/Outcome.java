package dev.crifresh.coordinator.report;

/** What happened to a node. {@code not-attempted}: after an abort, or in a plan. */
public enum Outcome {
    SKIPPED("skipped"),
    REBOOTED("rebooted"),
    BECAME_FRESH("became-fresh"),
    FAILED("failed"),
    NOT_ATTEMPTED("not-attempted");

    private final String wire;

    Outcome(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
