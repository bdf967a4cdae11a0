package dev.crifresh.coordinator.rollout.run;

/**
 * When the run's final inventory is read, and when what it read ends the run (pure; {@link RunNodes} carries it out):
 * only once no joined node is under way, so that the read sees every node the run decided.
 *
 * @param reading   a read is already under way
 * @param attesting joined nodes are still waited for to attest
 * @param tainting  how many joined stale nodes are being tainted before their roll is queued
 * @param undecided how many joined nodes settled while the run was deciding and wait for the roll to begin
 */
record InventoryGate(boolean reading, boolean attesting, int tainting, int undecided) {
    /** Whether to read now; else a joined node's end asks again. */
    boolean mayRead() {
        return !reading && !attesting && tainting == 0 && undecided == 0;
    }

    /**
     * Whether the read ends the run: it found no node nobody had classified (such a one is handled as joined, and
     * its end asks again) and no joined node is under way.
     */
    boolean endsRun(boolean foundUnclassified) {
        return !foundUnclassified && !attesting && tainting == 0;
    }
}
