package dev.crifresh.coordinator.gate.etcd;

import dev.crifresh.coordinator.driver.ProcessRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Runs one command (without a shell) and returns its output whatever its exit code. The seam between the
 * etcd gate and talosctl: production runs the process ({@link #process}, the reboot drivers' {@link ProcessRunner}), the simulator answers
 * as talosctl would for its simulated control planes.
 */
@FunctionalInterface
public interface CommandRunner {
    /** @throws IOException when the command cannot be started or does not finish in time */
    CommandOutput run(List<String> argv) throws IOException, InterruptedException;

    /** Runs the command as a child process, stdout and stderr captured apart, within {@code timeout}. */
    static CommandRunner process(Duration timeout) {
        ProcessRunner runner = new ProcessRunner(timeout);
        return argv -> {
            ProcessRunner.Output out = runner.capture(argv);
            return new CommandOutput(out.exitCode(), out.stdout(), out.stderr());
        };
    }
}
