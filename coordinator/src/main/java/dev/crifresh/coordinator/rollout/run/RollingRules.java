package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEnd;

/** The rolling phase's decisions, without I/O: what {@link RollingPhase} does after a pump and after a roll ends. */
final class RollingRules {
    private RollingRules() {
    }

    /** What the phase does once whatever fits has started. */
    enum AfterPump {
        /** Nothing in flight and nothing more may start (all done, or the run stops): the run is idle. */
        IDLE,
        /** Nothing in flight but nodes wait: the blocked timer runs ({@code --stall-timeout}). */
        BLOCKED,
        /** Nodes are in flight: their ends pump again; no blocked timer. */
        ROLLING
    }

    static AfterPump afterPump(boolean stopping, boolean noneInFlight, boolean queueEmpty) {
        if (noneInFlight && (queueEmpty || stopping)) {
            return AfterPump.IDLE;
        }
        return noneInFlight ? AfterPump.BLOCKED : AfterPump.ROLLING;
    }

    /**
     * What a roll's end leads to.
     *
     * @param halt         the run stops because of it (null: it does not)
     * @param rollAgain    an earlier run's record never carried out, released: the node is rolled like any node of this run
     * @param untaintFirst the node rebooted: its taint comes off before the next node starts, so evicted pods may land there
     */
    record AfterEnd(RunInput.Halt halt, boolean rollAgain, boolean untaintFirst) {
    }

    /**
     * @param stillThere whether the run still sees the node (a deleted one is not rolled again, and a failure it ended with
     *                   does not stop the run: it failed because its Node went away — a scale-down — and its containerd
     *                   with it)
     */
    static AfterEnd afterEnd(String node, NodeEnd end, boolean stillThere) {
        RunInput.Halt halt = end.stops() == null || !stillThere ? null : new RunInput.Halt(end.stops(), node + ": " + end.why());
        return new AfterEnd(halt, end instanceof NodeEnd.NotCarriedOut && stillThere, end.outcome() == Outcome.REBOOTED);
    }

    /** The report's detail for a node whose roll ended because (or while) its Node was deleted, or null when it was not. */
    static String deleted(NodeEnd end, boolean stillThere) {
        if (end instanceof NodeEnd.Deleted || stillThere || end.outcome() != Outcome.FAILED) {
            return null;
        }
        return "the node was deleted during its rollout (" + end.why() + ")";
    }
}
