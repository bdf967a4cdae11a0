package dev.crifresh.coordinator.gate.etcd;

import java.io.IOException;
import java.util.List;

/**
 * Runs one command (without a shell) and returns its output whatever its exit code. The seam between the
 * etcd gate and talosctl: production runs the process ({@link ProcessCommandRunner}), the simulator answers
 * as talosctl would for its simulated control planes.
 */
@FunctionalInterface
public interface CommandRunner {
    /** @throws IOException when the command cannot be started or does not finish in time */
    CommandOutput run(List<String> argv) throws IOException, InterruptedException;
}
