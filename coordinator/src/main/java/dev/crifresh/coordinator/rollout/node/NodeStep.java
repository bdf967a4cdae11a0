package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.Phase;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's roll as a pure step: {@code next(state, input) → (state, effects)}. {@link NodeRunner} carries the effects
 * out and feeds the answers back. The algorithm:
 * <ol>
 *   <li><b>Gate</b> ({@code Gated}): wait out its blockers, bounded by {@code --block-timeout}; a control plane needs a
 *       healthy etcd — else the node is not touched ({@link NodeEnd.NotTouched}, {@link NodeEnd.TimedOut});</li>
 *   <li><b>Own + cordon</b> ({@code Owning}): one guarded patch sets {@code crifresh.dev/rollout=<runId>/draining} and,
 *       when the node was schedulable, cordons it with {@code crifresh.dev/cordoned=true};</li>
 *   <li><b>Drain</b> ({@code Draining}, {@link DrainStep}) within {@code --drain-timeout}; {@code CrifreshDrained} once
 *       per drain;</li>
 *   <li><b>Last-moment check</b> ({@code Checking}, {@link LastMomentCheck}) on a fresh read: go, wait (bounded by
 *       {@code --reboot-timeout}), roll back, or hands off;</li>
 *   <li><b>Record</b> ({@code Recording}) phase {@code rebooting} with the boot id: the crash boundary — from here a
 *       failure leaves the node cordoned and owned, and a rerun waits for a new boot instead of rebooting it;</li>
 *   <li><b>Driver call</b> ({@code Requesting}): silence its alerts, read the Lease once more, request the reboot; a
 *       failed request may have got through ({@link NodeEnd.MayHaveRebooted});</li>
 *   <li><b>Return</b> ({@code Returning}, {@code Marking}): a new boot id and Ready within {@code --reboot-timeout},
 *       then phase {@code verifying}; a resumed record whose reboot was never carried out ({@link UnsentReboot}) is
 *       released on its unchanged boot id and queued again by the run ({@link NodeEnd.NotCarriedOut});</li>
 *   <li><b>Attest</b> ({@code Attesting}): a fresh attestation from the new boot within {@code --attest-timeout};
 *       stale reboots once more (from step 3), never a third time; a resumed node stale is handed back;</li>
 *   <li><b>Prove</b> ({@code Proving}): the gates after its return; a failure is reported and the node still released;</li>
 *   <li><b>Release</b> ({@code Releasing}): uncordon only what crifresh cordoned, drop the crifresh annotations.</li>
 * </ol>
 * A failure before the reboot request rolls the node back (release); after it the node is left cordoned and owned
 * ({@link #failed}: the one place that tells the two apart). A resumed node starts at step 7 or 8. Steps 4 to 6 are
 * {@link RebootStep}, steps 7 to 9 {@link ReturnStep}.
 */
final class NodeStep {
    /** The state after an input and what to do for it, in order. */
    record Step(NodeState state, List<NodeEffect> effects) {
    }

    static final String LEFT = "; left cordoned with " + CrifreshAnnotations.ROLLOUT;

    private NodeStep() {
    }

    static NodeState start(RollFacts roll) {
        return new Queued(roll);
    }

    static Step next(NodeState s, NodeInput in) {
        if (s instanceof Done) {
            return stay(s);
        }
        if (in instanceof Abandon a) {
            return abandon(s, a.why());
        }
        if (in instanceof NodeUpdated u) {
            NodeState seen = s.with(s.roll().seen(u.facts()));
            return seen instanceof Returning || seen instanceof Attesting ? ReturnStep.updated(seen, u.facts()) : stay(seen);
        }
        if (in instanceof NodeDeleted) {
            return s instanceof Queued || s.busy() ? stay(s)
                    : finish(s.roll(), new NodeEnd.Deleted("the node was deleted during its rollout (" + step(s) + ")"));
        }
        if (in instanceof Fenced) {
            return stay(s); // the lost Lease ends the run, which abandons the roll
        }
        RollFacts r = s.roll();
        if (s instanceof Queued && in instanceof Start start) {
            return start(r, start.facts());
        }
        if (s instanceof Gated && in instanceof GateAnswered g) {
            return gated(r, g);
        }
        if (s instanceof Owning) {
            return owning(r, in, s);
        }
        if (s instanceof Draining) {
            if (in instanceof Drained) {
                return then(List.of(new Event(EventReason.DRAINED, "every pod to evict is gone")), RebootStep.check(r, false));
            }
            return in instanceof DrainFailed f ? rollBack(r, f.why()) : stay(s);
        }
        if (s instanceof Checking || s instanceof Recording || s instanceof Requesting) {
            return RebootStep.next(s, in);
        }
        if (s instanceof Returning || s instanceof Marking || s instanceof Attesting || s instanceof Proving) {
            return ReturnStep.next(s, in);
        }
        if (s instanceof Releasing rel) {
            return releasing(rel, in);
        }
        if (s instanceof Resetting reset && (in instanceof Patched || in instanceof Refused || in instanceof Failed)) {
            String error = in instanceof Refused no ? no.why() : in instanceof Failed f ? f.error() : null;
            return finish(r, new NodeEnd.ResumedStillStale(reset.why() + (error == null
                    ? "; left cordoned in phase draining, so a rerun reboots it within the budget"
                    : LEFT + " (could not set phase draining: " + error + ")")));
        }
        return stay(s);
    }

    // ---- 1. gate ---------------------------------------------------------------------------------------------

    private static Step start(RollFacts r, NodeFacts facts) {
        if (facts == null) {
            return finish(r, new NodeEnd.Deleted("the node was deleted before it was started"));
        }
        RollFacts roll = r.started(facts);
        Ownership from = roll.resumeFrom();
        if (from == null) {
            return new Step(new Gated(roll), List.of(new Gate(facts)));
        }
        String bootBefore = facts.annotation(CrifreshAnnotations.BOOT_ID);
        if (from.phaseUnreadable() || (from.phase() == Phase.REBOOTING && bootBefore == null)) {
            // waiting for "a new boot" would accept the current one, and rebooting could reboot it twice
            String what = from.phaseUnreadable()
                    ? "an unreadable " + CrifreshAnnotations.ROLLOUT + " value '" + facts.annotation(CrifreshAnnotations.ROLLOUT) + "'"
                    : "phase rebooting without " + CrifreshAnnotations.BOOT_ID;
            return finish(roll, new NodeEnd.Untellable("earlier run " + from.runId() + " left " + what + ", so whether its"
                    + " reboot happened cannot be told; not rebooted, not released: check the node by hand, then remove "
                    + CrifreshAnnotations.ROLLOUT + " (and uncordon it if " + CrifreshAnnotations.CORDONED + " is true) and rerun"));
        }
        roll = roll.bootBefore(bootBefore).rebooted();
        List<NodeEffect> said = List.of(new RebootRequested(),
                new Say("resuming: earlier run " + from.runId() + " left it in phase " + from.phase().wire() + ", waiting for it", false));
        return then(said, from.phase() == Phase.VERIFYING || bootBefore == null ? ReturnStep.attest(roll) : ReturnStep.awaitReturn(roll));
    }

    private static Step gated(RollFacts r, GateAnswered g) {
        if (g.stopping()) {
            return finish(r, new NodeEnd.NotStarted("not rebooted: the rollout stopped before its turn; not touched"));
        }
        if (g.error() != null) {
            return finish(r, new NodeEnd.NotTouched("not rebooted: its gates could not be checked: " + g.error()));
        }
        if (g.verdict().pass()) {
            return new Step(new Owning(r), List.of(new Claim()));
        }
        return finish(r, g.verdict().timedOut() ? new NodeEnd.TimedOut(g.verdict().detail()) : new NodeEnd.NotTouched(g.verdict().detail()));
    }

    // ---- 2. own + cordon, 3. drain ----------------------------------------------------------------------------

    private static Step owning(RollFacts r, NodeInput in, NodeState s) {
        if (in instanceof Patched p) {
            NodeFacts node = NodeFacts.of(p.node());
            boolean byUs = "true".equals(node.annotation(CrifreshAnnotations.CORDONED));
            String said = byUs ? "cordoned" : "already cordoned by someone else; it stays cordoned";
            return then(List.of(new Say(said, false), new Event(EventReason.CORDONED, byUs ? "cordoned for the containerd config rollout" : said)),
                    drain(r.seen(node).cordoned(byUs)));
        }
        if (in instanceof Refused no) {
            return finish(r, new NodeEnd.NotTouched("not cordoned: " + no.why() + "; the node was not touched"));
        }
        return in instanceof Failed f ? rollBack(r, "could not cordon: " + f.error()) : stay(s);
    }

    static Step drain(RollFacts r) {
        return new Step(new Draining(r), List.of(new Event(EventReason.DRAINING, "evicting its pods through the Eviction API"), new StartDrain()));
    }

    // ---- 10. release; failures ------------------------------------------------------------------------------------

    static Step release(RollFacts r, NodeEnd then) {
        return new Step(new Releasing(r, then), List.of(new CancelTimer(), new Release(r.cordonedByUs())));
    }

    private static Step releasing(Releasing rel, NodeInput in) {
        RollFacts r = rel.roll();
        NodeEnd then = rel.then();
        if (in instanceof Patched p) {
            List<NodeEffect> said = p.uncordoned()
                    ? List.of(new Say("uncordoned", false), new Event(EventReason.UNCORDONED, "uncordoned: crifresh had cordoned it"))
                    : List.of();
            return then(said, finish(r, then));
        }
        String error = in instanceof Refused no ? no.why() : in instanceof Failed f ? f.error() : null;
        if (error == null) {
            return stay(rel);
        }
        if (then instanceof NodeEnd.NotCarriedOut) {
            // refused: the node changed (its boot id: it is rebooting after all) — wait for it as before
            return in instanceof Refused
                    ? then(List.of(new Say("not released: " + error + "; waiting for it", false)), ReturnStep.awaitReturn(r))
                    : finish(r, new NodeEnd.MayHaveRebooted(then.why() + ", but it could not be released: " + error + LEFT
                            + " so a rerun judges it again"));
        }
        boolean rebooted = then.outcome() == Outcome.REBOOTED;
        return finish(r, new NodeEnd.ReleaseFailed(then.why() + (rebooted
                ? "; but NOT uncordoned: could not release it (" + error + "): uncordon it and remove " + CrifreshAnnotations.ROLLOUT
                        + " by hand, or rerun"
                : "; then could not release it (uncordon, drop the crifresh annotations): " + error), rebooted));
    }

    /**
     * How a failure ends the roll: the one place that tells "may have rebooted" (a reboot was requested: left cordoned
     * and owned, a rerun waits for it) from "not touched".
     */
    static NodeEnd failed(RollFacts r, String why) {
        return r.reboots() > 0 ? new NodeEnd.MayHaveRebooted(why) : new NodeEnd.NotTouched(why);
    }

    /** A failure after the node was claimed: before any reboot request it is released again, else left as it is. */
    static Step rollBack(RollFacts r, String why) {
        if (r.reboots() > 0) {
            return finish(r, failed(r, why + LEFT));
        }
        return then(List.of(new Say("failed: " + why, true)),
                release(r, new NodeEnd.RolledBack(why + (r.crifreshCordoned() ? " (uncordoned again)" : ""), Outcome.FAILED)));
    }

    static Step finish(RollFacts r, NodeEnd end) {
        List<NodeEffect> effects = new ArrayList<>();
        effects.add(new CancelTimer());
        if (end.outcome() == Outcome.FAILED) {
            effects.add(new Say("failed: " + end.why(), true));
            effects.add(new Event(EventReason.FAILED, end.why()));
        }
        effects.add(new Finish());
        return new Step(new Done(r, end), effects);
    }

    /** The run is interrupted: stop here and leave the node as it is, for a rerun to resume. */
    private static Step abandon(NodeState s, String why) {
        RollFacts r = s.roll();
        NodeEnd end;
        if (s instanceof Releasing rel && rel.then().outcome() == Outcome.REBOOTED) {
            end = new NodeEnd.Abandoned(rel.then().why() + "; but NOT uncordoned: " + why + "; a rerun releases it", Outcome.REBOOTED);
        } else if (s instanceof Queued) {
            end = new NodeEnd.Abandoned(why, Outcome.NOT_ATTEMPTED);
        } else if (notSent(s) != null) {
            end = new NodeEnd.Abandoned(why + " while rebooting; its reboot was NOT sent (" + notSent(s) + "): a rerun that finds it"
                    + " Ready on the same boot since the record reboots it", Outcome.FAILED);
        } else {
            end = new NodeEnd.Abandoned(why + " while " + s.word() + "; a rerun resumes from " + CrifreshAnnotations.ROLLOUT, Outcome.FAILED);
        }
        return new Step(new Done(r, end), List.of(new CancelTimer()));
    }

    /** Why this run's reboot request of the node was certainly not sent in state {@code s}, or null when it may have been. */
    private static String notSent(NodeState s) {
        if (s instanceof Checking c && c.recorded() || s instanceof Requesting q && !q.calling()) {
            return "phase rebooting recorded, the driver not called";
        }
        return s instanceof Recording ? "the driver not called; phase rebooting may have been recorded" : null;
    }

    /** The step a roll that is not waiting for an answer is in, in words. */
    private static String step(NodeState s) {
        if (s instanceof Gated) {
            return "while waiting for its gates";
        }
        if (s instanceof Draining) {
            return "while draining";
        }
        if (s instanceof Returning) {
            return "while waiting for it to return from its reboot";
        }
        if (s instanceof Attesting) {
            return "while waiting for its attestation";
        }
        return "right before its reboot";
    }

    static Step stay(NodeState s) {
        return new Step(s, List.of());
    }

    static Step then(List<NodeEffect> first, Step next) {
        List<NodeEffect> all = new ArrayList<>(first);
        all.addAll(next.effects());
        return new Step(next.state(), all);
    }
}
