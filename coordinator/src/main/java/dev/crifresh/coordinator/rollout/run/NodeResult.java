package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.plan.Decisions;

/**
 * What the run itself recorded about one node (outside a {@link NodeRunner}): its decision, its outcome and
 * the detail explaining it. A null field was not recorded and falls back to a default in the report.
 */
record NodeResult(Decision decision, Outcome outcome, String detail) {
    static final NodeResult NONE = new NodeResult(null, null, null);

    NodeResult decided(Decision d) {
        return new NodeResult(d, outcome, detail);
    }

    NodeResult ended(Outcome o, String why) {
        return new NodeResult(decision, o, why);
    }

    NodeResult noted(String why) {
        return new NodeResult(decision, outcome, why);
    }

    /**
     * The node's report line: a finished roll's outcome wins over what the run recorded (but a roll that failed because
     * its Node was deleted is reported deleted); a node nothing
     * was recorded for is not-attempted, and says so when the run stopped.
     */
    NodeReport report(Classification c, Action action, NodeRunner roll, boolean stopped) {
        Decision d = decision != null ? decision : Decisions.of(c, action);
        Outcome o = outcome != null ? outcome : Outcome.NOT_ATTEMPTED;
        String why = detail != null ? detail : c.detail();
        if (roll != null && roll.outcome() != null && outcome != Outcome.DELETED) {
            o = roll.outcome();
            why = roll.detail();
        } else if (outcome == null && stopped) {
            why = "not attempted: the rollout stopped; " + c.detail();
        }
        if (action == Action.AUTO && d != Decision.SKIP) {
            why = NodeAction.forNode(Action.AUTO, c.node()).why() + "; " + why; // as plan says it
        }
        return new NodeReport(c.name(), c.node().role(), c.verdict(), c.reason(), d, o,
                c.markerSaysCurrent(), c.markerContradicts(), why, Decisions.actionWire(c, action, d));
    }
}
