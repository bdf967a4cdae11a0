package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;

/**
 * How a node's roll ended: one case per kind, each saying what it leaves on the node and what a rerun does with it.
 * The node's report outcome and whether (and why) the run stops derive from it, nowhere else.
 */
public sealed interface NodeEnd {
    /** The report's detail. */
    String why();

    Outcome outcome();

    /** Why the run stops because of it, or null when it does not stop the run. */
    StopReason stops();

    /** What a rerun does with the node, in words (for docs and the report's reader). */
    String rerun();

    /** Rebooted, fresh and released. */
    record Rebooted(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.REBOOTED; }
        public StopReason stops() { return null; }
        public String rerun() { return "finds it fresh and skips it"; }
    }

    /** Not started: the run stopped before its turn; untouched. */
    record NotStarted(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.NOT_ATTEMPTED; }
        public StopReason stops() { return null; }
        public String rerun() { return "decides it anew"; }
    }

    /** A bounded wait for its gates ran out before it was touched: the run stops as timed out (exit 3). */
    record TimedOut(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.NOT_ATTEMPTED; }
        public StopReason stops() { return StopReason.TIMED_OUT; }
        public String rerun() { return "decides it anew"; }
    }

    /** Failed before anything was written to it (gates refused, hands off, deleted, owned by someone else). */
    record NotTouched(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() { return "decides it anew"; }
    }

    /** Failed before its reboot request; cordon and ownership undone (or the stop released it unrebooted). */
    record RolledBack(String why, Outcome outcome) implements NodeEnd {
        public StopReason stops() { return outcome == Outcome.FAILED ? StopReason.NODE_FAILED : null; }
        public String rerun() { return "decides it anew"; }
    }

    /** Failed after its reboot request: left cordoned and owned in phase rebooting or verifying. */
    record MayHaveRebooted(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() {
            return "resumes waiting for it; reboots it itself only on evidence that the recorded reboot was never carried out";
        }
    }

    /**
     * An earlier run's record of a reboot that was never carried out ({@link UnsentReboot}): released, and queued again to
     * be rebooted like any node of this run (the report shows that roll's end, {@code why} first).
     */
    record NotCarriedOut(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.NOT_ATTEMPTED; }
        public StopReason stops() { return null; }
        public String rerun() { return "decides it anew"; }
    }

    /** An earlier run's ownership cannot tell whether its reboot happened: left as it is for a human. */
    record Untellable(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() { return "fails it again until its ownership is removed by hand"; }
    }

    /** A resumed node still stale after the earlier run's reboot: left cordoned in phase draining. */
    record ResumedStillStale(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() { return "releases it and reboots it within the budget"; }
    }

    /**
     * The node was deleted during its roll (a scale-down, say): nothing is patched, it is gone, and its containerd with it
     * — not a failure, the run goes on.
     */
    record Deleted(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.DELETED; }
        public StopReason stops() { return null; }
        public String rerun() { return "does not see it"; }
    }

    /** Rebooted and fresh, but a gate after its return failed (etcd not back, pull proof): released, the run stops. */
    record ProofFailed(String why) implements NodeEnd {
        public Outcome outcome() { return Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() { return "finds it fresh and skips it"; }
    }

    /** Its release (uncordon, annotations dropped) could not be done; {@code rebooted}: it is fresh, only left cordoned. */
    record ReleaseFailed(String why, boolean rebooted) implements NodeEnd {
        public Outcome outcome() { return rebooted ? Outcome.REBOOTED : Outcome.FAILED; }
        public StopReason stops() { return StopReason.NODE_FAILED; }
        public String rerun() { return "releases it"; }
    }

    /** The run was interrupted or lost its Lease while the node was in progress: left as it is. */
    record Abandoned(String why, Outcome outcome) implements NodeEnd {
        public StopReason stops() { return null; }
        public String rerun() { return "resumes from its crifresh.dev/rollout annotation"; }
    }
}
