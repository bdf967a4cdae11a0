package dev.crifresh.sim.run;

import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.coordinator.Action;
import dev.crifresh.coordinator.CoordinatorSettings;
import dev.crifresh.sim.cluster.NodeObjects;
import dev.crifresh.sim.scenario.CoordinatorSpec;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioAction;
import java.time.Duration;

/** The coordinator's settings for a scenario: its coordinator block, and what the simulated cluster needs. */
public final class CoordinatorFlags {
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);

    private CoordinatorFlags() {
    }

    public static CoordinatorSettings settings(Scenario scenario) {
        CoordinatorSpec c = scenario.coordinator();
        return CoordinatorSettings.defaults()
                .withRegistry(scenario.registry())
                .withMaxUnavailable(c.maxUnavailable())
                .withAction(c.action() == ScenarioAction.NONE ? Action.NONE : Action.REBOOT)
                .withConfigTimeout(c.configTimeout())
                .withRebootTimeout(c.rebootTimeout())
                .withAttestTimeout(c.attestTimeout())
                .withStaleTaint(dev.crifresh.coordinator.StaleTaint.fromWire(c.staleTaint().wire()))
                .withDrainTimeout(DRAIN_TIMEOUT)
                .withLockTimeout(LOCK_TIMEOUT)
                .withMarkerCurrentValue(NodeObjects.MARKER_CURRENT);
    }

    public static RegistryAuth desired(Scenario scenario) {
        return new RegistryAuth(scenario.registry(), scenario.desiredCredential().username(),
                scenario.desiredCredential().password(), "");
    }

    /** An upper bound for a whole rollout of this scenario, so a hung run cannot hang the caller. */
    static Duration runBound(Scenario scenario) {
        CoordinatorSpec c = scenario.coordinator();
        Duration perNode = DRAIN_TIMEOUT.plus(c.rebootTimeout()).plus(c.attestTimeout())
                .plus(scenario.simulation().reboot());
        return c.configTimeout().plus(LOCK_TIMEOUT).plus(perNode.multipliedBy(2L * scenario.nodes().size()))
                .plusSeconds(60);
    }
}
