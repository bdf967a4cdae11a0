package dev.crifresh.coordinator.gate.etcd;

/** What one command printed, and how it exited. */
public record CommandOutput(int exitCode, String stdout, String stderr) {
    public CommandOutput {
        stdout = stdout == null ? "" : stdout;
        stderr = stderr == null ? "" : stderr;
    }
}
