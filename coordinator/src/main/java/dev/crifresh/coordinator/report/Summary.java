package dev.crifresh.coordinator.report;

import java.util.List;

/** Counts over the report's nodes: verdicts as classified at the start, outcomes as they ended. */
public record Summary(int nodes, int fresh, int stale, int configPending, int unknown, int rebooted, int skipped, int failed) {

    public static Summary of(List<NodeReport> nodes) {
        int fresh = 0, stale = 0, pending = 0, unknown = 0, rebooted = 0, skipped = 0, failed = 0;
        for (NodeReport n : nodes) {
            switch (n.verdict()) {
                case FRESH -> fresh++;
                case STALE -> stale++;
                case CONFIG_PENDING -> pending++;
                case UNKNOWN -> unknown++;
            }
            switch (n.outcome()) {
                case REBOOTED -> rebooted++;
                case SKIPPED -> skipped++;
                case FAILED -> failed++;
                default -> { }
            }
        }
        return new Summary(nodes.size(), fresh, stale, pending, unknown, rebooted, skipped, failed);
    }
}
