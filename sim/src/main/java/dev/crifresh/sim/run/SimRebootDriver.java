package dev.crifresh.sim.run;

import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.sim.world.SimulatedWorld;
import io.fabric8.kubernetes.api.model.Node;

/** The coordinator's reboot driver for the simulated cluster: what {@code talosctl reboot --wait=false} is for Talos. */
public final class SimRebootDriver implements RebootDriver {
    private final SimulatedWorld cluster;

    public SimRebootDriver(SimulatedWorld cluster) {
        this.cluster = cluster;
    }

    @Override
    public void reboot(Node node) {
        cluster.requestReboot(node.getMetadata().getName());
    }
}
