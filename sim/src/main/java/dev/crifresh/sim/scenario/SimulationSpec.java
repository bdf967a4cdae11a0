package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * How the simulated platform behaves.
 *
 * @param reboot                           time from a reboot request to Ready with a new boot id
 * @param containerdRestartsOnConfigChange Talos >= 1.14: containerd restarts itself after each CRI config change
 */
public record SimulationSpec(Duration reboot, boolean containerdRestartsOnConfigChange) {
    public static SimulationSpec defaults() {
        return new SimulationSpec(Duration.ofMillis(300), false);
    }
}
