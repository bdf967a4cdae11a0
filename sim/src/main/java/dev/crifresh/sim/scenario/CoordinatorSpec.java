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
        Duration attestTimeout,
        GateSpec gates) {

    public CoordinatorSpec(String maxUnavailable, ScenarioAction action, Duration configTimeout, Duration rebootTimeout,
            Duration attestTimeout) {
        this(maxUnavailable, action, configTimeout, rebootTimeout, attestTimeout, GateSpec.defaults());
    }

    public static CoordinatorSpec defaults() {
        return new CoordinatorSpec("1", ScenarioAction.REBOOT,
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10));
    }
}
