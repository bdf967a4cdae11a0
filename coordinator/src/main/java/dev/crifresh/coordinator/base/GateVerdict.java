package dev.crifresh.coordinator.base;

/**
 * What a gate decided for one node.
 *
 * @param pass     the node may go on
 * @param detail   one human sentence: what was checked, or why it did not pass
 * @param timedOut it did not pass because a bounded wait ran out (exit 3), not because something failed
 */
public record GateVerdict(boolean pass, String detail, boolean timedOut) {
    public static GateVerdict passed(String detail) {
        return new GateVerdict(true, detail, false);
    }

    public static GateVerdict failed(String detail) {
        return new GateVerdict(false, detail, false);
    }

    public static GateVerdict timedOut(String detail) {
        return new GateVerdict(false, detail, true);
    }
}
