package dev.crifresh.coordinator.gate.etcd;

/**
 * The etcd gate's finding.
 *
 * @param healthy every member healthy, one agreed leader, as many members as control planes, no alarm
 * @param detail  the summary when healthy; otherwise the first problem, naming the member and its node
 */
public record EtcdHealth(boolean healthy, String detail) {
    public static EtcdHealth ok(String detail) {
        return new EtcdHealth(true, detail);
    }

    public static EtcdHealth problem(String detail) {
        return new EtcdHealth(false, detail);
    }
}
