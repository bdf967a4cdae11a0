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
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A node's roll from its return to its release, and resumed nodes, on the pure step alone. */
class NodeStepReturnTest {
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

}
