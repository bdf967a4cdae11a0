package dev.crifresh.coordinator.report;

/** Why a run ended the way it did; decides the exit code (docs/coordinator.md, "Exit codes"). */
public enum StopReason {
    /** Everything that had to be done was done (or it was a plan): exit 0. */
    COMPLETED(0),
    /** A node failed (drain, reboot driver, return, attestation after reboot): exit 1. */
    NODE_FAILED(1),
    /** The run was stopped from outside ({@code Coordinator.stop()}, SIGTERM): exit 1. */
    INTERRUPTED(1),
    /** A wait for the agents or the platform ran out (config-pending, action none, budget blocked): exit 3. */
    TIMED_OUT(3),
    /** The rollout Lease was held by another run for longer than the lock timeout: exit 4. */
    LOCK_NOT_ACQUIRED(4),
    /** The rollout Lease was lost during the run; no new work was started after that: exit 4. */
    LOCK_LOST(4),
    /**
     * No selected node carries a verifiable attestation of its current boot: the installation, not the nodes, is the
     * likely cause; stopped before the first cordon (or a plan that says so), unless {@code --allow-no-attestations}: exit 6.
     */
    NO_ATTESTATIONS(6);

    private final int exitCode;

    StopReason(int exitCode) {
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
