package dev.crifresh.coordinator.report;

/** What the coordinator decided for a node. {@code wait} = config-pending, or action none (auto: on Talos >= 1.14). */
public enum Decision {
    SKIP("skip"),
    REBOOT("reboot"),
    WAIT("wait");

    private final String wire;

    Decision(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
