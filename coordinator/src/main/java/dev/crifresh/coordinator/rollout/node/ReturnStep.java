package dev.crifresh.coordinator.rollout.node;

import static dev.crifresh.coordinator.rollout.node.NodeStep.LEFT;
import static dev.crifresh.coordinator.rollout.node.NodeStep.drain;
import static dev.crifresh.coordinator.rollout.node.NodeStep.finish;
import static dev.crifresh.coordinator.rollout.node.NodeStep.release;
import static dev.crifresh.coordinator.rollout.node.NodeStep.stay;
import static dev.crifresh.coordinator.rollout.node.NodeStep.then;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import dev.crifresh.coordinator.rollout.node.NodeStep.Step;
import dev.crifresh.coordinator.rollout.plan.Phase;
import java.util.List;

/**
 * Steps 7 to 9 of a node's roll ({@link NodeStep}), pure: its return (a new boot id and Ready within
 * {@code --reboot-timeout}, then phase {@code verifying}; a resumed record whose reboot was never carried out is
 * judged by {@link UnsentReboot}), its fresh attestation from the new boot (stale: rebooted once more, never a third
 * time), and the gates after its return.
 */
final class ReturnStep {
    private ReturnStep() {
    }

    static Step next(NodeState s, NodeInput in) {
        RollFacts r = s.roll();
        if (s instanceof Returning ret && in instanceof TimerFired) {
            return finish(r, new NodeEnd.MayHaveRebooted("did not return Ready with a new boot id within " + DurationText.format(r.rebootTimeout())
                    + (ret.unproven() == null ? "" : ", and its recorded reboot cannot be judged never carried out: " + ret.unproven())
                    + LEFT + " so a rerun waits for it"));
        }
        if (s instanceof Returning ret && in instanceof Classified seen) {
            return judged(ret, seen);
        }
        if (s instanceof Marking) {
            if (in instanceof Refused no) {
                return finish(r, new NodeEnd.MayHaveRebooted("rebooted, but " + no.why() + "; the node was not touched further"));
            }
            // phase verifying is a hint for a rerun; without it the rerun waits for the boot id
            return in instanceof Patched || in instanceof Failed ? attest(r) : stay(s);
        }
        if (s instanceof Attesting a) {
            return attesting(a, in);
        }
        if (s instanceof Proving p && in instanceof GateAnswered g) {
            if (g.error() == null && g.verdict().pass()) {
                String gates = g.verdict().detail();
                return release(r, new NodeEnd.Rebooted(p.rebooted() + (gates == null || gates.isEmpty() ? "" : "; " + gates)));
            }
            String why = g.error() == null ? g.verdict().detail() : "its gates could not be checked: " + g.error();
            return release(r, new NodeEnd.ProofFailed("rebooted and attests fresh, but " + why
                    + "; released (crifresh leaves no cordon behind), the rollout stops"));
        }
        return stay(s);
    }

    static Step awaitReturn(RollFacts r) {
        return new Step(new Returning(r), List.of(new ArmTimer(r.rebootTimeout()), new Look()));
    }

    /** The run saw the node change while it returns or attests. */
    static Step updated(NodeState s, NodeFacts facts) {
        RollFacts r = s.roll();
        if (s instanceof Attesting) {
            return facts == null ? finish(r, new NodeEnd.Deleted("the node was deleted while waiting for its attestation"))
                    : new Step(s, List.of(new Classify()));
        }
        if (!(s instanceof Returning)) {
            return stay(s);
        }
        if (facts == null) {
            return finish(r, new NodeEnd.Deleted("the node was deleted while rebooting"));
        }
        if (facts.bootId() == null || facts.bootId().equals(r.bootBefore()) || !facts.ready()) {
            // an earlier run's record: judged on the classified node whether its reboot was ever carried out
            return judgeable(r, facts) ? new Step(s, List.of(new Classify())) : stay(s);
        }
        return new Step(new Marking(r), List.of(new CancelTimer(),
                new Say("back with a new boot id, waiting for a fresh attestation", false),
                new Event(EventReason.RETURNED, "Ready with a new boot id " + facts.bootId() + ", waiting for a fresh attestation"),
                new MarkVerifying()));
    }

    /**
     * Whether the node is a resumed record of phase rebooting that this run has not rebooted itself, still on the boot
     * recorded before the reboot: then {@link UnsentReboot} may find the reboot never carried out.
     */
    private static boolean judgeable(RollFacts r, NodeFacts facts) {
        return r.resumed() && !r.resumeFrom().phaseUnreadable() && r.resumeFrom().phase() == Phase.REBOOTING && r.reboots() == 1
                && facts != null && facts.bootId() != null && facts.bootId().equals(r.bootBefore());
    }

    /**
     * A resumed record judged: never carried out — released (guarded by the unchanged boot id) and queued again by the
     * run, to be rebooted within the budget like its other nodes; else the fact that failed is kept for the timeout.
     */
    private static Step judged(Returning ret, Classified seen) {
        RollFacts r = ret.roll();
        if (!judgeable(r, seen.facts())) {
            return stay(ret);
        }
        UnsentReboot.Judgement j = UnsentReboot.judge(r.resumeFrom().runId(), r.startedAs(), seen.facts(), seen.classification(),
                r.allowance());
        if (j instanceof UnsentReboot.NotCarriedOut never) {
            return then(List.of(new Say(never.why() + "; released, to be rebooted within the budget", false),
                            new Event(EventReason.NOT_CARRIED_OUT, never.why() + "; released, to be rebooted within the budget")),
                    new Step(new Releasing(r, new NodeEnd.NotCarriedOut(never.why())),
                            List.of(new CancelTimer(), new Release(r.cordonedByUs(), r.bootBefore()))));
        }
        if (j instanceof UnsentReboot.Unproven no) {
            return stay(new Returning(r, no.missing()));
        }
        throw new IllegalStateException("unknown judgement " + j);
    }

    static Step attest(RollFacts r) {
        return new Step(new Attesting(r, null), List.of(new ArmTimer(r.attestTimeout()), new Look()));
    }

    private static Step attesting(Attesting a, NodeInput in) {
        RollFacts r = a.roll();
        if (in instanceof TimerFired) {
            return finish(r, new NodeEnd.MayHaveRebooted("no fresh attestation from the new boot within " + DurationText.format(r.attestTimeout())
                    + (a.lastWait() == null ? "" : " (last: " + a.lastWait() + ")") + LEFT + " so a rerun waits for it"));
        }
        if (!(in instanceof Classified seen)) {
            return stay(a);
        }
        Classification c = seen.classification();
        String notNew = notFromThisReboot(r, seen.facts());
        switch (c.verdict()) {
            case FRESH -> {
                if (notNew != null) {
                    return stay(new Attesting(r, notNew));
                }
                String rebooted = "rebooted" + (r.reboots() > 1 ? " " + r.reboots() + " times" : "") + "; " + c.detail();
                return new Step(new Proving(r, rebooted), List.of(new CancelTimer(), new Say("fresh (" + c.reason() + ")", false),
                        new Event(EventReason.FRESH, "containerd loaded the current config (" + c.reason() + ")"), new Prove()));
            }
            case STALE -> {
                if (r.reboots() >= 2) {
                    return finish(r, new NodeEnd.MayHaveRebooted("still stale after " + r.reboots() + " reboots (" + c.reason() + "): "
                            + c.detail() + LEFT));
                }
                if (r.resumed()) {
                    // started outside the budget and the control-plane rule: not rebooted again here
                    String why = "still stale after the earlier run's reboot (" + c.reason() + "): " + c.detail()
                            + "; not rebooted again by this run (a resumed node skipped the budget and control-plane checks)";
                    return new Step(new Resetting(r, why), List.of(new CancelTimer(), new ResetPhase()));
                }
                return then(List.of(new CancelTimer(), new Say("still stale after the reboot (" + c.reason() + "), rebooting once more", false)),
                        drain(r));
            }
            default -> {
                return stay(new Attesting(r, c.verdict().wire() + ", " + c.reason() + ": " + c.detail()));
            }
        }
    }

    /**
     * Why the node's attestation cannot prove this run's reboot, or null when it can: it must come from a boot other than
     * the one recorded before the reboot, and must not have been seen before this run's driver call.
     */
    static String notFromThisReboot(RollFacts r, NodeFacts facts) {
        if (facts == null) {
            return "the node is gone";
        }
        if (r.bootBefore() != null && r.bootBefore().equals(facts.bootId())) {
            return "the node still reports the boot id from before the reboot";
        }
        if (facts.attestation() != null && r.seenBefore().contains(facts.attestation().message())) {
            return "the attestation is one seen before this run's reboot request";
        }
        return null;
    }
}
