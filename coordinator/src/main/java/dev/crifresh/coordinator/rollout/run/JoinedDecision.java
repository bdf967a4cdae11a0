package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import java.time.Duration;

/**
 * What becomes of a node that joined during the run, once it settled, decided like any other ({@link #decide}, pure;
 * {@link JoinedDecisions} carries it out, each type by its own {@link Handler} method):
 * <ol>
 *   <li>fresh: skipped;</li>
 *   <li>config-pending after its whole wait: it failed, and the run fails (exit 3) once the other nodes are done — its
 *       node group's machine config is the likely cause;</li>
 *   <li>stale or unknown: its action ({@link NodeAction}) is decided, and with action auto announced; auto's wait
 *       is over once the reboots began, so a node joining then is rebooted (fail toward rebooting). Then, if the
 *       run is stopping, it is not attempted; a reboot during auto's wait follows the wait; another reboot is
 *       rolled; a wait-restart joins the fresh wait.</li>
 * </ol>
 */
sealed interface JoinedDecision {
    /** How the report's detail of a joined node begins. */
    String JOINED = "joined during the run; ";

    /** Why a node joins with the old credential, most likely: what created it was not updated. */
    String LIKELY_CAUSE = "the likely cause is its node group's machine config (the autoscaler's template for new nodes)"
            + " still carrying the old credential: update it, then roll this node";

    /** Who carries the decisions out: one method per type. */
    interface Handler {
        void skip(Skip s);

        void timedOut(TimedOut t);

        void notAttempted(NotAttempted n);

        void afterTheWait(AfterTheWait a);

        void roll(Roll r);

        void waitRestart(WaitRestart w);
    }

    /**
     * @param latest   the node's classification now
     * @param facts    the node as the view has it now
     * @param action   {@code --action}
     * @param stage    where the run is (rolling or waiting when a joined node is decided)
     * @param stopping whether the run stops
     */
    static JoinedDecision decide(Classification latest, NodeFacts facts, Action action, NodeEventStage stage, boolean stopping,
                                 Duration attestTimeout, String registry) {
        String name = latest.name();
        if (latest.verdict() == NodeVerdict.FRESH) {
            return new Skip(new RunEffect.NodeRecord(name, Decision.SKIP, Outcome.SKIPPED, JOINED + latest.detail()),
                    new RunEvent.JoinedDecided(name, latest, RunEvent.JoinedRoute.SKIPPED));
        }
        if (latest.verdict() == NodeVerdict.CONFIG_PENDING) {
            String within = DurationText.format(attestTimeout);
            return new TimedOut(new RunEffect.NodeRecord(name, Decision.WAIT, Outcome.FAILED, JOINED
                    + "its config did not hold the desired credential within " + within + ": " + latest.detail() + "; " + LIKELY_CAUSE),
                    new RunInput.Halt(StopReason.TIMED_OUT, name + " joined during the run and its config did not hold the desired"
                            + " credential for " + registry + " within " + within + ": " + LIKELY_CAUSE));
        }
        NodeAction resolved = NodeAction.forNode(action, facts);
        if (resolved.action() == Action.NONE && action == Action.AUTO && stage == NodeEventStage.ROLLING) {
            resolved = new NodeAction(Action.REBOOT, resolved.why() + ", but it joined after the wait ended");
        }
        Decided decided = new Decided(name, resolved, action == Action.AUTO);
        boolean reboot = resolved.action() == Action.REBOOT;
        if (stopping) {
            return new NotAttempted(decided, JOINED + "not attempted: the rollout stopped; " + latest.detail());
        } else if (reboot && stage == NodeEventStage.WAITING) {
            return new AfterTheWait(decided, new RunEvent.JoinedDecided(name, latest, RunEvent.JoinedRoute.AFTER_THE_WAIT),
                    new RunInput.JoinedAfterWait(facts));
        } else if (reboot) {
            return new Roll(decided, new RunEvent.JoinedDecided(name, latest, RunEvent.JoinedRoute.ROLLED));
        }
        return new WaitRestart(decided, latest);
    }

    /** The report's detail for a joined node still waited for when the run ended ({@code error}: why it stopped, or null). */
    static String endedWhileWaiting(String error) {
        return JOINED + "not attempted: the rollout ended while waiting for its attestation (" + error + ")";
    }

    static void dispatch(JoinedDecision decision, Handler h) {
        if (decision instanceof Skip s) {
            h.skip(s);
        } else if (decision instanceof TimedOut t) {
            h.timedOut(t);
        } else if (decision instanceof NotAttempted n) {
            h.notAttempted(n);
        } else if (decision instanceof AfterTheWait a) {
            h.afterTheWait(a);
        } else if (decision instanceof Roll r) {
            h.roll(r);
        } else if (decision instanceof WaitRestart w) {
            h.waitRestart(w);
        } else {
            throw new IllegalStateException("unhandled " + decision);
        }
    }

    /** A stale or unknown node's action, announced with action auto ({@link RunEvent.NodeDecided}). */
    record Decided(String node, NodeAction action, boolean announced) {
        Decision decision() {
            return action.action() == Action.REBOOT ? Decision.REBOOT : Decision.WAIT;
        }
    }

    /** Fresh: recorded as skipped. */
    record Skip(RunEffect.NodeRecord record, RunEvent.JoinedDecided event) implements JoinedDecision {
    }

    /** Config-pending after its wait: recorded as failed; {@code halt}: how the run fails once everything else is done. */
    record TimedOut(RunEffect.NodeRecord record, RunInput.Halt halt) implements JoinedDecision {
    }

    /** The run is stopping: ended not attempted. */
    record NotAttempted(Decided decided, String detail) implements JoinedDecision {
    }

    /** A reboot decided during auto's wait: the run reboots it with the others once the wait ends. */
    record AfterTheWait(Decided decided, RunEvent.JoinedDecided event, RunInput.JoinedAfterWait input) implements JoinedDecision {
    }

    /** A reboot while rolling: tainted, then queued with the other rolls. */
    record Roll(Decided decided, RunEvent.JoinedDecided event) implements JoinedDecision {
    }

    /** Wait for containerd to restart itself: the node joins the fresh wait, checked with this classification. */
    record WaitRestart(Decided decided, Classification latest) implements JoinedDecision {
    }
}
