package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * The coordinator flags of a scenario.
 *
 * @param maxUnavailable a count ("1") or a percentage ("25%"), as the coordinator's flag takes it
 * @param staleTaint     the coordinator's {@code --stale-taint}
 * @param gates          the rollout gates' flags (pull proof, etcd, blockers)
 * @param force          the coordinator's {@code --force}: evict pods that declare no controller
 * @param deleteEmptyDirData the coordinator's {@code --delete-emptydir-data}: evict pods with emptyDir volumes
 */
public record CoordinatorSpec(
        String maxUnavailable,
        ScenarioAction action,
        Duration configTimeout,
        Duration rebootTimeout,
        Duration attestTimeout,
        ScenarioStaleTaint staleTaint,
        GateSpec gates,
        boolean force,
        boolean deleteEmptyDirData) {

    /** The gates' defaults and kubectl drain's: neither --force nor --delete-emptydir-data. */
    public static CoordinatorSpec defaults() {
        return new CoordinatorSpec("1", ScenarioAction.REBOOT,
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10), ScenarioStaleTaint.PREFER_NO_SCHEDULE,
                GateSpec.defaults(), false, false);
    }
}
