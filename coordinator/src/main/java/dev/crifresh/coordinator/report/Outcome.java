package dev.crifresh.coordinator.report;

/**
 * What happened to a node. {@code not-attempted}: after an abort, or in a plan. {@code leaving}: the cluster autoscaler
 * is removing it, not rolled. {@code deleted}: its Node was deleted during the run (its containerd went with it).
 */
public enum Outcome {
    SKIPPED("skipped"),
    REBOOTED("rebooted"),
    BECAME_FRESH("became-fresh"),
    FAILED("failed"),
    NOT_ATTEMPTED("not-attempted"),
    LEAVING("leaving"),
    DELETED("deleted");

    private final String wire;

    Outcome(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
