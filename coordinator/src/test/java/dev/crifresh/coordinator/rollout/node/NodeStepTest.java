package dev.crifresh.coordinator.rollout.node;

import static dev.crifresh.coordinator.rollout.node.NodeStepFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A node's roll from its gates to the reboot request, on the pure step alone: no Vert.x, no API, no time passing. */
class NodeStepTest {
    // ---- 1. gate ------------------------------------------------------------------------------------------------

    @Test
    void startsAtItsGates() {
        NodeStep.Step s = run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)));
        assertInstanceOf(Gated.class, s.state());
        assertEquals(List.of(new Gate(facts("boot-1", true, false))), s.effects());
    }

    static Stream<Arguments> gateAnswers() {
        return Stream.of(
                Arguments.of(new GateAnswered(GateVerdict.passed(""), null, true), NodeEnd.NotStarted.class, null),
                Arguments.of(new GateAnswered(null, "boom", false), NodeEnd.NotTouched.class, StopReason.NODE_FAILED),
                Arguments.of(new GateAnswered(GateVerdict.failed("etcd unhealthy"), null, false), NodeEnd.NotTouched.class, StopReason.NODE_FAILED),
                Arguments.of(new GateAnswered(GateVerdict.timedOut("blocked"), null, false), NodeEnd.TimedOut.class, StopReason.TIMED_OUT));
    }

    @ParameterizedTest
    @MethodSource("gateAnswers")
    void aGateThatDoesNotPassEndsItUntouched(GateAnswered answer, Class<? extends NodeEnd> kind, StopReason stops) {
        NodeStep.Step s = run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)), answer);
        NodeEnd end = end(s);
        assertInstanceOf(kind, end);
        assertEquals(stops, end.stops());
        assertFalse(has(s, Claim.class), "nothing is written");
    }

    @Test
    void aDeletedNodeIsNotStarted() {
        assertInstanceOf(NodeEnd.Deleted.class, end(run(NodeStep.start(roll(null)), new Start(null))));
    }

    // ---- 2. own + cordon, 3. drain --------------------------------------------------------------------------------

    @Test
    void aPassedGateClaimsThenDrains() {
        NodeStep.Step s = run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)), new GateAnswered(GateVerdict.passed(""), null, false));
        assertInstanceOf(Owning.class, s.state());
        assertEquals(List.of(new Claim()), s.effects());
        s = NodeStep.next(s.state(), new Patched(ownedNode(), false));
        assertInstanceOf(Draining.class, s.state());
        assertTrue(s.state().roll().cordonedByUs());
        assertEquals(List.of(EventReason.CORDONED, EventReason.DRAINING), events(s));
        assertTrue(has(s, StartDrain.class));
    }

    @Test
    void aRefusedClaimLeavesItUntouchedAndAFailedOneRollsBack() {
        NodeState owning = run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)),
                new GateAnswered(GateVerdict.passed(""), null, false)).state();
        NodeEnd refused = end(NodeStep.next(owning, new Refused("it is now owned by 'x/draining'")));
        assertInstanceOf(NodeEnd.NotTouched.class, refused);
        assertEquals("not cordoned: it is now owned by 'x/draining'; the node was not touched", refused.why());
        NodeStep.Step failed = NodeStep.next(owning, new Failed("500 boom"));
        Releasing rel = assertInstanceOf(Releasing.class, failed.state());
        assertEquals(new NodeEnd.RolledBack("could not cordon: 500 boom", Outcome.FAILED), rel.then());
        assertEquals(new Release(false), failed.effects().get(failed.effects().size() - 1));
        assertEquals(owning, NodeStep.next(owning, new Fenced()).state(), "a lost Lease: the run abandons it");
        assertEquals(owning, NodeStep.next(owning, new NodeDeleted()).state(), "the claim's answer decides");
    }

    @Test
    void aDrainThatFailsRollsBackAndUncordonsWhatItCordoned() {
        NodeState before = run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)),
                new GateAnswered(GateVerdict.passed(""), null, false), new Patched(ownedNode(), false)).state();
        NodeStep.Step s = NodeStep.next(before, new DrainFailed("drain did not finish within 1s: p"));
        assertEquals(new NodeEnd.RolledBack("drain did not finish within 1s: p (uncordoned again)", Outcome.FAILED),
                ((Releasing) s.state()).then());
        assertEquals(new Release(true), s.effects().get(s.effects().size() - 1));
        NodeEnd end = end(NodeStep.next(s.state(), new Patched(node("boot-1", true, false), true)));
        assertInstanceOf(NodeEnd.RolledBack.class, end);
        assertEquals(StopReason.NODE_FAILED, end.stops());
        assertEquals("the node was deleted during its rollout (while draining)", end(NodeStep.next(before, new NodeDeleted())).why());
    }

    // ---- 4. last-moment check, 5. record, 6. driver call -------------------------------------------------------

    @Test
    void drainedReadsTheNodesOnceAndRecordsOnGo() {
        NodeStep.Step s = run(drained());
        Checking c = assertInstanceOf(Checking.class, s.state());
        assertTrue(c.reading());
        s = NodeStep.next(c, read(ownedNode(), 0));
        assertInstanceOf(Recording.class, s.state());
        assertInstanceOf(RecordRebooting.class, s.effects().get(0));
    }

    @Test
    void notNowWaitsBoundedAndTheDrainedEventIsNotRepeated() {
        Node other = node("boot-9", false, false);
        Node self = ownedNode();
        // a worker with budget 1 and another node NotReady: wait
        Read notNow = new Read(self, List.of(NodeFacts.of(self), NodeFacts.of(new NodeBuilder(other).editMetadata().withName("w2").endMetadata().build())),
                Set.of("w1"), 1, 0, 0);
        NodeStep.Step s = NodeStep.next(drained(), notNow);
        Checking waiting = assertInstanceOf(Checking.class, s.state());
        assertFalse(waiting.reading());
        assertEquals(0L, waiting.waitingSince());
        assertEquals(2, s.effects().size());
        assertTrue(((Say) s.effects().get(0)).text().startsWith("drained, but not rebooted yet: "), s.effects().toString());
        assertEquals(new ArmTimer(Duration.ofMillis(1000)), s.effects().get(1));
        s = NodeStep.next(s.state(), new TimerFired());
        assertEquals(List.of(new ReadForCheck()), s.effects());
        Read later = new Read(notNow.node(), notNow.cluster(), notNow.inFlight(), 1, 0, STALL.toNanos());
        s = NodeStep.next(s.state(), later);
        assertEquals(List.of(new ArmTimer(Duration.ofMillis(1000))), s.effects(), "said once; no second CrifreshDrained");
        s = NodeStep.next(NodeStep.next(s.state(), new TimerFired()).state(),
                new Read(notNow.node(), notNow.cluster(), notNow.inFlight(), 1, 0, STALL.toNanos() + 1));
        Releasing rel = assertInstanceOf(Releasing.class, s.state());
        assertTrue(rel.then().why().endsWith(" for 45s (uncordoned again)"), "bounded by --stall-timeout: " + rel.then().why());
    }

    static Stream<Arguments> checkVerdicts() {
        Node owned = ownedNode();
        return Stream.of(
                Arguments.of(null, NodeEnd.NotTouched.class, "not rebooted: the node was deleted; the node was not touched"),
                Arguments.of(node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, "other/draining"), NodeEnd.NotTouched.class, null),
                Arguments.of(node("boot-1", true, false, CrifreshAnnotations.ROLLOUT, OURS), NodeEnd.RolledBack.class,
                        "not rebooted: it was uncordoned by someone else (uncordoned again)"),
                Arguments.of(new NodeBuilder(owned).editStatus().editNodeInfo().withBootID(null).endNodeInfo().endStatus().build(),
                        NodeEnd.RolledBack.class, null));
    }

    @ParameterizedTest
    @MethodSource("checkVerdicts")
    void theLastMomentCheckRollsBackOrLetsGo(Node fresh, Class<? extends NodeEnd> kind, String why) {
        NodeStep.Step s = NodeStep.next(drained(), new Read(fresh, List.of(), Set.of("w1"), 1, 0, 0));
        NodeEnd end = s.state() instanceof Releasing rel ? rel.then() : end(s);
        assertInstanceOf(kind, end);
        if (why != null) {
            assertEquals(why, end.why());
        }
    }

    @Test
    void stoppingBeforeTheCheckReleasesItUnrebooted() {
        NodeStep.Step s = NodeStep.next(drained(), new Stopping());
        NodeEnd then = ((Releasing) s.state()).then();
        assertEquals(Outcome.NOT_ATTEMPTED, then.outcome());
        assertNull(then.stops());
        assertInstanceOf(Checking.class, NodeStep.next(drained(), new Outage()).state());
        assertEquals("not rebooted: could not read the nodes again right before its reboot: 503 x",
                ((Releasing) NodeStep.next(drained(), new Failed("503 x")).state()).then().why().replace(" (uncordoned again)", ""));
    }

    @Test
    void recordedThenSilencedConfirmedAndRequested() {
        Node n = ownedNode();
        NodeState recording = NodeStep.next(drained(), read(n, 0)).state();
        NodeStep.Step s = NodeStep.next(recording, new Recorded(n, "boot-1", 0, false));
        Requesting req = assertInstanceOf(Requesting.class, s.state());
        assertEquals("boot-1", req.roll().bootBefore());
        assertEquals(List.of(new Say("phase rebooting recorded (boot id boot-1)", false), new SilenceAndConfirm()), s.effects());
        s = NodeStep.next(req, new Confirmed(0));
        assertEquals(List.of(new CallDriver(n)), s.effects());
        s = NodeStep.next(s.state(), new DriverAnswered(null));
        assertInstanceOf(Returning.class, s.state());
        assertEquals(1, s.state().roll().reboots());
        assertEquals(List.of(new RebootRequested(), new Say("reboot requested", false),
                new NodeEffect.Event(EventReason.REBOOT_REQUESTED, "reboot requested so that containerd loads the current CRI config;"
                        + " boot id before: boot-1"), new ArmTimer(REBOOT), new Look()), s.effects());
    }

    @Test
    void aRequestTheLeaseFenceRefusedIsCheckedAgainOnceTheRunMayWriteAndANotSentReportedSo() {
        Node n = ownedNode();
        NodeState calling = run(drained(), read(n, 0), new Recorded(n, "boot-1", 0, false), new Confirmed(0)).state();
        assertTrue(assertInstanceOf(Requesting.class, calling).calling());
        NodeStep.Step refused = NodeStep.next(calling, new DriverRefused());
        Checking again = assertInstanceOf(Checking.class, refused.state());
        assertTrue(again.recorded());
        assertEquals(0, again.roll().reboots(), "a refused request counted as a reboot");
        assertTrue(refused.effects().contains(new AwaitMayWrite()), refused.effects().toString());
        assertEquals(List.of(new ReadForCheck()), NodeStep.next(again, new Outage()).effects());
        NodeEnd lost = end(NodeStep.next(again, new Abandon("the rollout lock was lost")));
        assertEquals("the rollout lock was lost while rebooting; its reboot was NOT sent (phase rebooting recorded, the driver not"
                + " called): a rerun that finds it Ready on the same boot since the record reboots it", lost.why());
        // while the driver call is in flight it may have been sent: not said
        assertFalse(end(NodeStep.next(calling, new Abandon("lost"))).why().contains("NOT sent"));
        assertTrue(end(NodeStep.next(NodeStep.next(drained(), read(n, 0)).state(), new Abandon("lost"))).why()
                .contains("its reboot was NOT sent (the driver not called; phase rebooting may have been recorded)"));
    }

    /** A node an earlier run ("old") left in phase rebooting, recorded at 12:00 on boot-1, resumed by this run. */
    static NodeState resumedReturning() {
        Node n = recordedNode("True", "2026-12-04T11:00:00Z", "2026-12-04T12:00:50Z");
        return NodeStep.next(NodeStep.start(roll(Ownership.parse("old/rebooting"))), new Start(NodeFacts.of(n))).state();
    }

    static Node recordedNode(String ready, String since, String beat) {
        Node n = node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, "old/rebooting", CrifreshAnnotations.BOOT_ID, "boot-1",
                CrifreshAnnotations.RECORDED_AT, "2026-12-04T12:00:00Z", CrifreshAnnotations.CORDONED, "true");
        n.getStatus().getConditions().get(0).setStatus(ready);
        n.getStatus().getConditions().get(0).setLastTransitionTime(since);
        n.getStatus().getConditions().get(0).setLastHeartbeatTime(beat);
        return n;
    }

    @Test
    void aResumedRecordNeverCarriedOutIsReleasedOnItsBootIdToBeRebootedAgain() {
        NodeState r = resumedReturning();
        assertInstanceOf(Returning.class, r);
        NodeFacts same = NodeFacts.of(recordedNode("True", "2026-12-04T11:00:00Z", "2026-12-04T12:01:35Z"));
        NodeStep.Step look = NodeStep.next(r, new NodeUpdated(same));
        assertEquals(List.of(new Classify()), look.effects(), "the same boot is judged on the classified node");
        NodeStep.Step judged = NodeStep.next(look.state(), new Classified(same, classified(same, NodeVerdict.STALE)));
        Releasing rel = assertInstanceOf(Releasing.class, judged.state());
        NodeEnd.NotCarriedOut never = assertInstanceOf(NodeEnd.NotCarriedOut.class, rel.then());
        assertEquals("reboot recorded by run old was never carried out: boot id unchanged and Ready since 2026-12-04T11:00:00Z",
                never.why());
        assertNull(never.stops(), "a record never carried out stops the run");
        assertTrue(judged.effects().contains(new Release(true, "boot-1")), judged.effects().toString());
        assertTrue(judged.effects().contains(new NodeEffect.Event(EventReason.NOT_CARRIED_OUT, never.why()
                + "; released, to be rebooted within the budget")), judged.effects().toString());
        assertEquals(never, end(NodeStep.next(rel, new Patched(node("boot-1", true, false), true))));
        // the release refused because the boot id moved on: it is rebooting after all, waited for
        assertInstanceOf(Returning.class, NodeStep.next(rel, new Refused("its boot id changed")).state());
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end(NodeStep.next(rel, new Failed("503"))));
    }

    @Test
    void aResumedRecordNotProvenKeepsWaitingAndItsTimeoutNamesTheFact() {
        NodeState r = resumedReturning();
        NodeFacts episode = NodeFacts.of(recordedNode("True", "2026-12-04T12:00:30Z", "2026-12-04T12:01:35Z"));
        NodeState waiting = NodeStep.next(r, new Classified(episode, classified(episode, NodeVerdict.STALE))).state();
        Returning ret = assertInstanceOf(Returning.class, waiting);
        assertTrue(ret.unproven().contains("went NotReady in between"), ret.unproven());
        NodeEnd timedOut = end(NodeStep.next(waiting, new TimerFired()));
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, timedOut);
        assertTrue(timedOut.why().startsWith("did not return Ready with a new boot id within 1m, and its recorded reboot cannot be"
                + " judged never carried out: it has been Ready only since 2026-12-04T12:00:30Z"), timedOut.why());
        // a node of this run, or one back on a new boot, is never judged
        assertEquals(List.of(), NodeStep.next(returning(), new NodeUpdated(facts("boot-1", true, true))).effects());
        assertInstanceOf(Marking.class, NodeStep.next(r, new NodeUpdated(facts("boot-2", true, true))).state());
    }

    @Test
    void aLapseOfTheHoldBetweenCheckAndCallChecksAgainAsRecorded() {
        Node n = ownedNode();
        NodeState recording = NodeStep.next(drained(), read(n, 0)).state();
        Checking again = assertInstanceOf(Checking.class, NodeStep.next(recording, new Recorded(n, "boot-1", 1, false)).state());
        assertTrue(again.recorded());
        NodeState requesting = NodeStep.next(recording, new Recorded(n, "boot-1", 0, false)).state();
        assertTrue(((Checking) NodeStep.next(requesting, new Confirmed(2)).state()).recorded());
        assertTrue(((Checking) NodeStep.next(requesting, new Outage()).state()).recorded());
        assertTrue(((Checking) NodeStep.next(recording, new Outage()).state()).reading());
        NodeStep.Step stop = NodeStep.next(recording, new Recorded(n, "boot-1", 0, true));
        assertEquals(Outcome.NOT_ATTEMPTED, ((Releasing) stop.state()).then().outcome());
    }

    @Test
    void failuresBeforeTheRequestRollBackAndAFailedRequestMayHaveRebooted() {
        Node n = ownedNode();
        NodeState recording = NodeStep.next(drained(), read(n, 0)).state();
        assertEquals("could not record phase rebooting: 409 conflict (uncordoned again)",
                ((Releasing) NodeStep.next(recording, new Failed("409 conflict")).state()).then().why());
        NodeStep.Step waits = NodeStep.next(recording, new RecordRefused(new LastMomentCheck.Wait("budget"), 5));
        assertEquals(5L, ((Checking) waits.state()).waitingSince());
        NodeState requesting = NodeStep.next(recording, new Recorded(n, "boot-1", 0, false)).state();
        assertEquals(NodeEnd.RolledBack.class, ((Releasing) NodeStep.next(requesting, new Failed("x")).state()).then().getClass());
        NodeState calling = NodeStep.next(requesting, new Confirmed(0)).state();
        NodeStep.Step failed = NodeStep.next(calling, new DriverAnswered("talosctl: exit 1"));
        NodeEnd end = end(failed);
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end);
        assertTrue(end.why().startsWith("reboot request failed: talosctl: exit 1; the reboot may have happened anyway"), end.why());
        assertTrue(has(failed, RebootRequested.class) && has(failed, Finish.class));
        assertFalse(has(failed, Release.class), "nothing uncordons a node that may be going down");
    }
}
