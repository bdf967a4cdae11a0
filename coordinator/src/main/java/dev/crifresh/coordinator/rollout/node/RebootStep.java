package dev.crifresh.coordinator.rollout.node;

import static dev.crifresh.coordinator.rollout.node.NodeStep.LEFT;
import static dev.crifresh.coordinator.rollout.node.NodeStep.failed;
import static dev.crifresh.coordinator.rollout.node.NodeStep.finish;
import static dev.crifresh.coordinator.rollout.node.NodeStep.release;
import static dev.crifresh.coordinator.rollout.node.NodeStep.rollBack;
import static dev.crifresh.coordinator.rollout.node.NodeStep.stay;
import static dev.crifresh.coordinator.rollout.node.NodeStep.then;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import dev.crifresh.coordinator.rollout.node.NodeStep.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Steps 4 to 6 of a node's roll ({@link NodeStep}), pure: the last-moment check on a fresh read (go; wait, bounded by
 * {@code --reboot-timeout}; roll back; hands off), the record of phase {@code rebooting} — the crash boundary — and
 * the driver call after the Lease is read once more. A lapse of the run's hold between the check's read and the call,
 * or an API outage, sends the roll back to the check (phase rebooting then counts as its own).
 */
final class RebootStep {
    private RebootStep() {
    }

    static Step next(NodeState s, NodeInput in) {
        if (s instanceof Checking c) {
            return checking(c, in);
        }
        return s instanceof Recording rec ? recording(rec, in) : requesting((Requesting) s, in);
    }


    static Step check(RollFacts r, boolean recorded) {
        return new Step(new Checking(r, null, recorded, true), List.of(new ReadForCheck()));
    }

    private static Step checking(Checking c, NodeInput in) {
        RollFacts r = c.roll();
        if (in instanceof Stopping) {
            return r.reboots() == 0
                    ? release(r, new NodeEnd.RolledBack("not rebooted: the rollout stopped before its reboot; released", Outcome.NOT_ATTEMPTED))
                    : finish(r, new NodeEnd.MayHaveRebooted("still stale after its reboot; not rebooted again because the rollout stopped" + LEFT));
        }
        if (in instanceof Outage || (in instanceof TimerFired && !c.reading())) {
            return new Step(new Checking(r, c.waitingSince(), c.recorded(), true), List.of(new ReadForCheck()));
        }
        if (in instanceof Failed f) {
            return rollBack(r, "not rebooted: could not read the nodes again right before its reboot: " + f.error());
        }
        if (in instanceof Read read) {
            NodeFacts fresh = read.node() == null ? null : NodeFacts.of(read.node());
            LastMomentCheck.Verdict v = LastMomentCheck.check(r.runId(), c.recorded(), r.startedAs(), fresh, read.cluster(),
                    read.inFlight(), read.budget());
            if (v instanceof LastMomentCheck.Go) {
                return new Step(new Recording(r, read.lapse(), c.recorded()),
                        List.of(new RecordRebooting(read.node(), read.cluster(), read.inFlight(), read.budget(), c.recorded())));
            }
            return verdict(c, v, read.nowNanos());
        }
        return stay(c);
    }

    /** The check did not say go: wait (bounded by {@code --stall-timeout}) and check again, roll back, or hands off. */
    private static Step verdict(Checking c, LastMomentCheck.Verdict v, long now) {
        RollFacts r = c.roll();
        if (v instanceof LastMomentCheck.RollBack back) {
            return rollBack(r, "not rebooted: " + back.why());
        }
        if (v instanceof LastMomentCheck.HandsOff off) {
            return finish(r, failed(r, "not rebooted: " + off.why() + "; the node was not touched"));
        }
        String why = ((LastMomentCheck.Wait) v).why();
        Duration limit = r.stallTimeout();
        List<NodeEffect> effects = new ArrayList<>();
        Long since = c.waitingSince();
        if (since == null) {
            since = now;
            effects.add(new Say("drained, but not rebooted yet: " + why, false));
        } else if (now - since > limit.toNanos()) {
            return rollBack(r, "not rebooted: " + why + " for " + DurationText.format(limit));
        }
        effects.add(new ArmTimer(Duration.ofMillis(Math.max(20, Math.min(1000, limit.toMillis() / 20)))));
        return new Step(new Checking(r, since, c.recorded(), false), effects);
    }

    private static Step recording(Recording rec, NodeInput in) {
        RollFacts r = rec.roll();
        if (in instanceof Outage) {
            return check(r, rec.recorded());
        }
        if (in instanceof RecordRefused no) {
            return verdict(new Checking(r, null, rec.recorded(), false), no.verdict(), no.nowNanos());
        }
        if (in instanceof Failed f) {
            return rollBack(r, "could not record phase rebooting: " + f.error());
        }
        if (in instanceof Recorded done) {
            RollFacts roll = r.bootBefore(done.bootId());
            if (done.lapses() != rec.lapse()) {
                return check(roll, true); // the hold lapsed after the check's read: read and check everything again
            }
            if (done.stopping()) {
                return release(roll, new NodeEnd.RolledBack("not rebooted: the rollout stopped before its reboot; released", Outcome.NOT_ATTEMPTED));
            }
            roll = roll.seenAttestations(roll.latest(), NodeFacts.of(done.node()));
            // the node's alerts are silenced before the Lease is read for its reboot (never fails; see RunSilences)
            return new Step(new Requesting(roll, done.node(), rec.lapse(), false),
                    List.of(new Say("phase rebooting recorded (boot id " + done.bootId() + ")", false), new SilenceAndConfirm()));
        }
        return stay(rec);
    }

    private static Step requesting(Requesting req, NodeInput in) {
        RollFacts r = req.roll();
        if (in instanceof Outage) {
            return check(r, true); // phase rebooting stays recorded with the boot id; the check read before is stale
        }
        if (!req.calling()) {
            if (in instanceof Confirmed ok) {
                return ok.lapses() != req.lapse() ? check(r, true)
                        : new Step(new Requesting(r, req.node(), req.lapse(), true), List.of(new CallDriver(req.node())));
            }
            return in instanceof Failed f
                    ? rollBack(r, "not rebooted: could not read the rollout Lease right before its reboot: " + f.error()) : stay(req);
        }
        if (in instanceof DriverRefused) {
            // nothing was sent: like a fenced confirm, check everything again once the run may write (an allowed outage);
            // a hold that ended for good ends the run, which abandons the roll saying the reboot was not sent
            return new Step(new Checking(r, null, true, true), List.of(new Say("reboot not sent: the Lease fence refused it;"
                    + " checked again once the run may write", false), new AwaitMayWrite()));
        }
        if (!(in instanceof DriverAnswered answer)) {
            return stay(req);
        }
        RollFacts roll = r.rebooted();
        List<NodeEffect> effects = new ArrayList<>();
        if (roll.reboots() == 1) {
            effects.add(new RebootRequested());
        }
        if (answer.error() != null) {
            // the request may still have reached the node (talosctl killed at its timeout after delivering it, say)
            return then(effects, finish(roll, new NodeEnd.MayHaveRebooted("reboot request failed: " + answer.error()
                    + "; the reboot may have happened anyway, so the node was left cordoned with " + CrifreshAnnotations.ROLLOUT
                    + " in phase rebooting: a rerun resumes from the annotations, waits for a new boot id, and reboots it itself"
                    + " once the node shows it never rebooted (the same boot id, Ready since before the record)")));
        }
        int n = roll.reboots();
        effects.add(new Say(n == 1 ? "reboot requested" : "reboot requested again (" + n + ")", false));
        effects.add(new Event(EventReason.REBOOT_REQUESTED, "reboot requested so that containerd loads the current CRI config"
                + (n > 1 ? " (reboot " + n + ")" : "") + "; boot id before: " + roll.bootBefore()));
        return then(effects, ReturnStep.awaitReturn(roll));
    }
}
