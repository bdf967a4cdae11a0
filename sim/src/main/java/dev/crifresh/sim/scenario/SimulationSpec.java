package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * How the simulated platform behaves.
 *
 * @param reboot                           time from a reboot request to Ready with a new boot id
 * @param containerdRestartsOnConfigChange Talos >= 1.14: containerd restarts itself after each CRI config change
 * @param podTermination                   time from an accepted eviction to the pod's deletion (its graceful termination)
 */
public record SimulationSpec(Duration reboot, boolean containerdRestartsOnConfigChange, Duration podTermination) {
    public static final Duration DEFAULT_POD_TERMINATION = Duration.ofMillis(50);

    public static SimulationSpec defaults() {
        return new SimulationSpec(Duration.ofMillis(300), false, DEFAULT_POD_TERMINATION);
    }
}
