package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.AttestationCondition;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every step of a node's roll and every way it ends, on the pure step alone: no Vert.x, no API, no time passing. */
class NodeStepTest {
    private static final String RUN = "run-1";
    private static final Duration REBOOT = Duration.ofSeconds(60);
    private static final Duration ATTEST = Duration.ofSeconds(90);
    private static final String OURS = RUN + "/draining";

    // ---- fixtures ---------------------------------------------------------------------------------------------

    static Node node(String boot, boolean ready, boolean cordoned, String... annotations) {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i < annotations.length; i += 2) {
            a.put(annotations[i], annotations[i + 1]);
        }
        return new NodeBuilder().withNewMetadata().withName("w1").withUid("uid-1").withResourceVersion("7").withAnnotations(a)
                .endMetadata().withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus().withNewNodeInfo().withBootID(boot).endNodeInfo()
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress().endStatus().build();
    }

    static NodeFacts facts(String boot, boolean ready, boolean cordoned, String... annotations) {
        return NodeFacts.of(node(boot, ready, cordoned, annotations));
    }

    static NodeFacts attested(String boot, String message) {
        NodeFacts f = facts(boot, true, true, CrifreshAnnotations.ROLLOUT, RUN + "/verifying");
        return new NodeFacts(f.name(), f.uid(), f.resourceVersion(), f.role(), f.bootId(), f.ready(), f.unschedulable(),
                f.internalIps(), f.annotations(), new AttestationCondition("True", "Fresh", message), f.osImage());
    }

    static Classification classified(NodeFacts f, NodeVerdict v) {
        return new Classification(f, v, "Because", "the detail", false, null);
    }

    static RollFacts roll(Ownership resumeFrom) {
        return RollFacts.of("w1", RUN, resumeFrom, REBOOT, ATTEST);
    }

    static NodeStep.Step run(NodeState s, NodeInput... inputs) {
        NodeStep.Step step = new NodeStep.Step(s, List.of());
        for (NodeInput in : inputs) {
            step = NodeStep.next(step.state(), in);
        }
        return step;
    }

    /** A roll that owns and cordoned the node, drained. */
    static NodeState drained() {
        return run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)), new GateAnswered(GateVerdict.passed(""), null, false),
                new Patched(node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, OURS, CrifreshAnnotations.CORDONED, "true"), false),
                new Drained()).state();
    }

    static Read read(Node n, long now) {
        return new Read(n, List.of(NodeFacts.of(n)), Set.of("w1"), 1, 0, now);
    }

    static Node ownedNode() {
        return node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, OURS, CrifreshAnnotations.CORDONED, "true");
    }

    /** Recorded and requested: waiting for the return. */
    static NodeState returning() {
        Node n = ownedNode();
        return run(drained(), read(n, 0), new Recorded(n, "boot-1", 0, false), new Confirmed(0), new DriverAnswered(null)).state();
    }

    static NodeState attesting() {
        return run(returning(), new NodeUpdated(facts("boot-2", true, true, CrifreshAnnotations.ROLLOUT, RUN + "/rebooting")),
                new Patched(node("boot-2", true, true), false)).state();
    }

    static NodeEnd end(NodeStep.Step step) {
        return assertInstanceOf(Done.class, step.state()).end();
    }

    static <T extends NodeEffect> boolean has(NodeStep.Step step, Class<T> kind) {
        return step.effects().stream().anyMatch(kind::isInstance);
    }

    static List<EventReason> events(NodeStep.Step step) {
        return step.effects().stream().filter(NodeEffect.Event.class::isInstance).map(e -> ((NodeEffect.Event) e).reason()).toList();
    }

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
        Read later = new Read(notNow.node(), notNow.cluster(), notNow.inFlight(), 1, 0, REBOOT.toNanos() / 2);
        s = NodeStep.next(s.state(), later);
        assertEquals(List.of(new ArmTimer(Duration.ofMillis(1000))), s.effects(), "said once; no second CrifreshDrained");
        s = NodeStep.next(NodeStep.next(s.state(), new TimerFired()).state(),
                new Read(notNow.node(), notNow.cluster(), notNow.inFlight(), 1, 0, REBOOT.toNanos() + 1));
        Releasing rel = assertInstanceOf(Releasing.class, s.state());
        assertTrue(rel.then().why().endsWith(" for 1m (uncordoned again)"), rel.then().why());
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

    // ---- 7. return, 8. attest, 9. prove, 10. release ------------------------------------------------------------

    @Test
    void returnsWithANewBootIdAndReady() {
        NodeState r = returning();
        assertInstanceOf(Returning.class, NodeStep.next(r, new NodeUpdated(facts("boot-1", true, true))).state(), "same boot");
        assertEquals(r.getClass(), NodeStep.next(r, new NodeUpdated(facts("boot-2", false, true))).state().getClass(), "not Ready");
        NodeStep.Step back = NodeStep.next(r, new NodeUpdated(facts("boot-2", true, true)));
        assertInstanceOf(Marking.class, back.state());
        assertEquals(List.of(EventReason.RETURNED), events(back));
        assertTrue(has(back, MarkVerifying.class));
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end(NodeStep.next(r, new TimerFired())));
        assertEquals("the node was deleted while rebooting", end(NodeStep.next(r, new NodeUpdated(null))).why());
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end(NodeStep.next(back.state(), new Refused("its rollout is now gone"))));
        assertInstanceOf(Attesting.class, NodeStep.next(back.state(), new Failed("500")).state());
    }

    @Test
    void attestsFreshOnlyFromTheNewBootThenProvesAndReleases() {
        NodeState a = attesting();
        assertEquals(List.of(new Classify()), NodeStep.next(a, new NodeUpdated(facts("boot-2", true, true))).effects());
        NodeFacts oldBoot = attested("boot-1", "m1");
        assertEquals("the node still reports the boot id from before the reboot",
                ((Attesting) NodeStep.next(a, new Classified(oldBoot, classified(oldBoot, NodeVerdict.FRESH))).state()).lastWait());
        NodeFacts fresh = attested("boot-2", "m2");
        NodeStep.Step s = NodeStep.next(a, new Classified(fresh, classified(fresh, NodeVerdict.FRESH)));
        Proving p = assertInstanceOf(Proving.class, s.state());
        assertEquals("rebooted; the detail", p.rebooted());
        assertEquals(List.of(EventReason.FRESH), events(s));
        s = NodeStep.next(p, new GateAnswered(GateVerdict.passed("pull proof passed"), null, false));
        assertEquals(new NodeEnd.Rebooted("rebooted; the detail; pull proof passed"), ((Releasing) s.state()).then());
        s = NodeStep.next(s.state(), new Patched(node("boot-2", true, false), true));
        assertEquals(List.of(EventReason.UNCORDONED), events(s));
        NodeEnd end = end(s);
        assertEquals(Outcome.REBOOTED, end.outcome());
        assertNull(end.stops());
    }

    @Test
    void anAttestationSeenBeforeTheRequestProvesNothing() {
        Node n = node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, OURS);
        NodeFacts before = attested("boot-1", "seen");
        NodeState recording = NodeStep.next(NodeStep.next(drained(), new NodeUpdated(before)).state(), read(n, 0)).state();
        NodeState a = run(recording, new Recorded(n, "boot-1", 0, false), new Confirmed(0), new DriverAnswered(null),
                new NodeUpdated(facts("boot-2", true, true)), new Patched(n, false)).state();
        NodeFacts replay = attested("boot-2", "seen");
        assertEquals("the attestation is one seen before this run's reboot request",
                ((Attesting) NodeStep.next(a, new Classified(replay, classified(replay, NodeVerdict.FRESH))).state()).lastWait());
    }

    @Test
    void staleRebootsOnceMoreNeverAThirdTime() {
        NodeFacts stale = attested("boot-2", "m");
        NodeStep.Step again = NodeStep.next(attesting(), new Classified(stale, classified(stale, NodeVerdict.STALE)));
        assertInstanceOf(Draining.class, again.state());
        assertTrue(has(again, StartDrain.class));
        Node n = ownedNode();
        NodeState second = run(again.state(), new Drained(), read(n, 0), new Recorded(n, "boot-2", 0, false), new Confirmed(0),
                new DriverAnswered(null), new NodeUpdated(facts("boot-3", true, true)), new Patched(n, false)).state();
        assertEquals(2, second.roll().reboots());
        NodeFacts stillStale = attested("boot-3", "m3");
        NodeEnd end = end(NodeStep.next(second, new Classified(stillStale, classified(stillStale, NodeVerdict.STALE))));
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end);
        assertTrue(end.why().startsWith("still stale after 2 reboots"), end.why());
    }

    @Test
    void waitingForAnAttestationTimesOutWithTheLastReason() {
        NodeFacts unknown = attested("boot-2", "m");
        NodeState a = NodeStep.next(attesting(), new Classified(unknown, classified(unknown, NodeVerdict.UNKNOWN))).state();
        NodeEnd end = end(NodeStep.next(a, new TimerFired()));
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end);
        assertTrue(end.why().contains("within 90s (last: unknown, Because: the detail)"), end.why());
        assertEquals("the node was deleted while waiting for its attestation", end(NodeStep.next(a, new NodeUpdated(null))).why());
    }

    @Test
    void aGateFailingAfterTheReturnIsReportedAndTheNodeStillReleased() {
        NodeFacts fresh = attested("boot-2", "m2");
        NodeState p = NodeStep.next(attesting(), new Classified(fresh, classified(fresh, NodeVerdict.FRESH))).state();
        NodeStep.Step s = NodeStep.next(p, new GateAnswered(GateVerdict.failed("etcd not healthy"), null, false));
        assertInstanceOf(NodeEnd.ProofFailed.class, ((Releasing) s.state()).then());
        NodeEnd end = end(NodeStep.next(s.state(), new Patched(node("boot-2", true, false), true)));
        assertEquals(Outcome.FAILED, end.outcome());
        assertEquals(StopReason.NODE_FAILED, end.stops());
    }

    static Stream<Arguments> releaseFailures() {
        return Stream.of(Arguments.of(new Refused("its rollout is now 'x'")), Arguments.of(new Failed("500 boom")));
    }

    @ParameterizedTest
    @MethodSource("releaseFailures")
    void aFailedReleaseIsItsOwnCase(NodeInput failure) {
        NodeFacts fresh = attested("boot-2", "m2");
        NodeState rel = run(attesting(), new Classified(fresh, classified(fresh, NodeVerdict.FRESH)),
                new GateAnswered(GateVerdict.passed(""), null, false)).state();
        NodeEnd rebooted = end(NodeStep.next(rel, failure));
        assertEquals(NodeEnd.ReleaseFailed.class, rebooted.getClass());
        assertEquals(Outcome.REBOOTED, rebooted.outcome());
        assertTrue(rebooted.why().contains("; but NOT uncordoned: could not release it ("), rebooted.why());
        NodeState rollBack = NodeStep.next(drained(), new Failed("x")).state();
        NodeEnd notRebooted = end(NodeStep.next(rollBack, failure));
        assertEquals(new NodeEnd.ReleaseFailed(((Releasing) rollBack).then().why() + "; then could not release it (uncordon, drop the"
                + " crifresh annotations): " + (failure instanceof Refused r ? r.why() : ((Failed) failure).error()), false), notRebooted);
    }

    // ---- resumed nodes --------------------------------------------------------------------------------------------

    static Stream<Arguments> untellable() {
        return Stream.of(Arguments.of("old/??", "an unreadable crifresh.dev/rollout value 'old/??'"),
                Arguments.of("old/rebooting", "phase rebooting without crifresh.dev/boot-id"));
    }

    @ParameterizedTest
    @MethodSource("untellable")
    void aResumedNodeThatCannotTellIsLeftForAHuman(String value, String what) {
        NodeStep.Step s = run(NodeStep.start(roll(Ownership.parse(value))), new Start(facts("boot-1", true, true, CrifreshAnnotations.ROLLOUT, value)));
        NodeEnd end = end(s);
        assertInstanceOf(NodeEnd.Untellable.class, end);
        assertTrue(end.why().startsWith("earlier run old left " + what), end.why());
        assertFalse(has(s, Release.class));
    }

    @Test
    void aResumedNodeWaitsForItsReturnOrAttestationAndIsHandedBackWhenStale() {
        Ownership rebooting = Ownership.parse("old/rebooting");
        NodeStep.Step r = run(NodeStep.start(roll(rebooting)), new Start(facts("boot-1", true, true, CrifreshAnnotations.ROLLOUT,
                "old/rebooting", CrifreshAnnotations.BOOT_ID, "boot-1")));
        assertInstanceOf(Returning.class, r.state());
        assertEquals(List.of(new RebootRequested(), new Say("resuming: earlier run old left it in phase rebooting, waiting for it", false),
                new ArmTimer(REBOOT), new Look()), r.effects());
        NodeState a = run(NodeStep.start(roll(Ownership.parse("old/verifying"))),
                new Start(facts("boot-2", true, true, CrifreshAnnotations.ROLLOUT, "old/verifying"))).state();
        assertInstanceOf(Attesting.class, a);
        NodeFacts stale = attested("boot-2", "m");
        NodeStep.Step s = NodeStep.next(a, new Classified(stale, classified(stale, NodeVerdict.STALE)));
        assertInstanceOf(Resetting.class, s.state());
        assertTrue(has(s, ResetPhase.class));
        NodeEnd end = end(NodeStep.next(s.state(), new Patched(node("boot-2", true, true), false)));
        assertInstanceOf(NodeEnd.ResumedStillStale.class, end);
        assertTrue(end.why().endsWith("; left cordoned in phase draining, so a rerun reboots it within the budget"), end.why());
        assertTrue(end(NodeStep.next(s.state(), new Failed("500"))).why().endsWith("(could not set phase draining: 500)"));
    }

    // ---- abandon, and what a finished roll ignores -------------------------------------------------------------

    static Stream<Arguments> abandoned() {
        Function<String, NodeState> queued = x -> NodeStep.start(roll(null));
        return Stream.of(
                Arguments.of(queued, Outcome.NOT_ATTEMPTED, "interrupted"),
                Arguments.of((Function<String, NodeState>) x -> NodeStep.next(drained(), new Failed("x")).state(), Outcome.FAILED,
                        "interrupted while releasing; a rerun resumes from crifresh.dev/rollout"),
                Arguments.of((Function<String, NodeState>) x -> returning(), Outcome.FAILED,
                        "interrupted while returning; a rerun resumes from crifresh.dev/rollout"));
    }

    @ParameterizedTest
    @MethodSource("abandoned")
    void abandonLeavesTheNodeAsItIs(Function<String, NodeState> from, Outcome outcome, String why) {
        NodeStep.Step s = NodeStep.next(from.apply(""), new Abandon("interrupted"));
        NodeEnd end = end(s);
        assertEquals(new NodeEnd.Abandoned(why, outcome), end);
        assertNull(end.stops());
        assertFalse(has(s, Finish.class), "the run abandoned it: it is not told again");
        assertEquals(s.state(), NodeStep.next(s.state(), new TimerFired()).state());
    }

    @Test
    void abandonedWhileReleasingARebootedNodeIsRebootedButCordoned() {
        NodeFacts fresh = attested("boot-2", "m2");
        NodeState rel = run(attesting(), new Classified(fresh, classified(fresh, NodeVerdict.FRESH)),
                new GateAnswered(GateVerdict.passed(""), null, false)).state();
        NodeEnd end = end(NodeStep.next(rel, new Abandon("the rollout lock was lost")));
        assertEquals(Outcome.REBOOTED, end.outcome());
        assertTrue(end.why().endsWith("; but NOT uncordoned: the rollout lock was lost; a rerun releases it"), end.why());
    }

    static Stream<Arguments> endKinds() {
        return Stream.of(
                Arguments.of(new NodeEnd.Rebooted("w"), Outcome.REBOOTED, null),
                Arguments.of(new NodeEnd.NotStarted("w"), Outcome.NOT_ATTEMPTED, null),
                Arguments.of(new NodeEnd.TimedOut("w"), Outcome.NOT_ATTEMPTED, StopReason.TIMED_OUT),
                Arguments.of(new NodeEnd.NotTouched("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.RolledBack("w", Outcome.FAILED), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.RolledBack("w", Outcome.NOT_ATTEMPTED), Outcome.NOT_ATTEMPTED, null),
                Arguments.of(new NodeEnd.MayHaveRebooted("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Untellable("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ResumedStillStale("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Deleted("w"), Outcome.DELETED, null),
                Arguments.of(new NodeEnd.ProofFailed("w"), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ReleaseFailed("w", true), Outcome.REBOOTED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.ReleaseFailed("w", false), Outcome.FAILED, StopReason.NODE_FAILED),
                Arguments.of(new NodeEnd.Abandoned("w", Outcome.FAILED), Outcome.FAILED, null));
    }

    /** The report's outcome and the run's stop derive from how the roll ended, and each kind says what a rerun does. */
    @ParameterizedTest
    @MethodSource("endKinds")
    void eachEndSaysItsOutcomeWhetherTheRunStopsAndWhatARerunDoes(NodeEnd end, Outcome outcome, StopReason stops) {
        assertEquals(outcome, end.outcome());
        assertEquals(stops, end.stops());
        assertFalse(end.rerun().isBlank());
    }

    @Test
    void everyFailureIsReportedAsAnEventOnce() {
        NodeStep.Step s = NodeStep.next(returning(), new TimerFired());
        assertEquals(List.of(EventReason.FAILED), events(s));
        assertEquals(Role.WORKER, s.state().roll().startedAs().role());
    }
}
