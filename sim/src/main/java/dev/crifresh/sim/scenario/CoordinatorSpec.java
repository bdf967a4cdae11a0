package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * The coordinator flags of a scenario.
 *
 * @param maxUnavailable a count ("1") or a percentage ("25%"), as the coordinator's flag takes it
 */
public record CoordinatorSpec(
        String maxUnavailable,
        ScenarioAction action,
        Duration configTimeout,
        Duration rebootTimeout,
        Duration attestTimeout) {

    public static CoordinatorSpec defaults() {
        return new CoordinatorSpec("1", ScenarioAction.REBOOT,
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10));
    }
}
