package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What becomes of a settled joined node ({@link JoinedDecision#decide}), table-driven, and its dispatcher. */
class JoinedDecisionTest {
    private static final String OLD = "Talos (v1.13.2)";
    private static final String NEW = "Talos (v1.14.1)";
    private static final String OLD_WHY = "Talos v1.13.2 does not restart containerd on a config change";
    private static final String NEW_WHY = "Talos v1.14.1 restarts containerd itself on a config change";
    private static final Duration ATTEST = Duration.ofMinutes(5);
    private static final String REGISTRY = "registry.example";

    static Stream<Arguments> cases() {
        NodeEventStage rolling = NodeEventStage.ROLLING;
        NodeEventStage waiting = NodeEventStage.WAITING;
        return Stream.of(
                // verdict, --action, osImage, stage, stopping → the decision
                Arguments.of(NodeVerdict.FRESH, Action.REBOOT, OLD, rolling, false, "skip"),
                Arguments.of(NodeVerdict.FRESH, Action.AUTO, OLD, waiting, true, "skip"),
                Arguments.of(NodeVerdict.CONFIG_PENDING, Action.REBOOT, OLD, rolling, false, "timed out"),
                Arguments.of(NodeVerdict.CONFIG_PENDING, Action.NONE, NEW, waiting, true, "timed out"),
                Arguments.of(NodeVerdict.STALE, Action.REBOOT, NEW, rolling, false, "roll, REBOOT (--action reboot)"),
                Arguments.of(NodeVerdict.UNKNOWN, Action.REBOOT, OLD, rolling, false, "roll, REBOOT (--action reboot)"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, OLD, rolling, false, "roll, REBOOT (" + OLD_WHY + ") announced"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, NEW, rolling, false,
                        "roll, REBOOT (" + NEW_WHY + ", but it joined after the wait ended) announced"),
                Arguments.of(NodeVerdict.UNKNOWN, Action.AUTO, null, rolling, false, "roll, REBOOT (no Talos version reported) announced"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, OLD, waiting, false, "after the wait, REBOOT (" + OLD_WHY + ") announced"),
                Arguments.of(NodeVerdict.UNKNOWN, Action.AUTO, "", waiting, false,
                        "after the wait, REBOOT (no Talos version reported) announced"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, NEW, waiting, false, "wait-restart, WAIT (" + NEW_WHY + ") announced"),
                Arguments.of(NodeVerdict.STALE, Action.NONE, OLD, waiting, false, "wait-restart, WAIT (--action none)"),
                // only auto's wait is over once the reboots began: none never reboots
                Arguments.of(NodeVerdict.STALE, Action.NONE, OLD, rolling, false, "wait-restart, WAIT (--action none)"),
                Arguments.of(NodeVerdict.STALE, Action.REBOOT, OLD, rolling, true, "not attempted, REBOOT (--action reboot)"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, NEW, waiting, true, "not attempted, WAIT (" + NEW_WHY + ") announced"),
                Arguments.of(NodeVerdict.STALE, Action.AUTO, NEW, rolling, true,
                        "not attempted, REBOOT (" + NEW_WHY + ", but it joined after the wait ended) announced"),
                Arguments.of(NodeVerdict.UNKNOWN, Action.NONE, OLD, waiting, true, "not attempted, WAIT (--action none)"));
    }

    @ParameterizedTest(name = "{0} {1} {2} {3} stopping={4}")
    @MethodSource("cases")
    void decides(NodeVerdict verdict, Action action, String osImage, NodeEventStage stage, boolean stopping, String expected) {
        NodeFacts f = facts(osImage);
        assertEquals(expected, describe(JoinedDecision.decide(latest(f, verdict), f, action, stage, stopping, ATTEST, REGISTRY)));
    }

    @Test
    void aFreshNodeIsRecordedSkipped() {
        NodeFacts f = facts(OLD);
        Classification c = latest(f, NodeVerdict.FRESH);
        JoinedDecision.Skip s = (JoinedDecision.Skip) decide(c, Action.REBOOT, NodeEventStage.ROLLING, false);
        assertEquals(new RunEffect.NodeRecord("w9", Decision.SKIP, Outcome.SKIPPED, "joined during the run; the detail"), s.record());
        assertEquals(new RunEvent.JoinedDecided("w9", c, RunEvent.JoinedRoute.SKIPPED), s.event());
    }

    @Test
    void aNodeStillConfigPendingFailsTheRunAtItsEndNamingTheMachineConfig() {
        JoinedDecision.TimedOut t = (JoinedDecision.TimedOut) decide(latest(facts(OLD), NodeVerdict.CONFIG_PENDING), Action.AUTO,
                NodeEventStage.WAITING, false);
        assertEquals(new RunEffect.NodeRecord("w9", Decision.WAIT, Outcome.FAILED,
                "joined during the run; its config did not hold the desired credential within 5m: the detail; "
                        + JoinedDecision.LIKELY_CAUSE), t.record());
        assertEquals(new RunInput.Halt(StopReason.TIMED_OUT,
                "w9 joined during the run and its config did not hold the desired credential for registry.example within 5m: "
                        + JoinedDecision.LIKELY_CAUSE), t.halt());
        assertTrue(JoinedDecision.LIKELY_CAUSE.contains("node group's machine config"));
    }

    @Test
    void aNodeDecidedWhileStoppingIsNotAttempted() {
        JoinedDecision.NotAttempted n = (JoinedDecision.NotAttempted) decide(latest(facts(OLD), NodeVerdict.STALE), Action.REBOOT,
                NodeEventStage.ROLLING, true);
        assertEquals("w9", n.decided().node());
        assertEquals("joined during the run; not attempted: the rollout stopped; the detail", n.detail());
    }

    @Test
    void aRebootDuringAutosWaitJoinsTheRebootsAfterIt() {
        NodeFacts f = facts(OLD);
        Classification c = latest(f, NodeVerdict.STALE);
        JoinedDecision.AfterTheWait a = (JoinedDecision.AfterTheWait) decide(c, Action.AUTO, NodeEventStage.WAITING, false);
        assertEquals(new RunEvent.JoinedDecided("w9", c, RunEvent.JoinedRoute.AFTER_THE_WAIT), a.event());
        assertEquals(new RunInput.JoinedAfterWait(f), a.input());
    }

    @Test
    void aRebootWhileRollingIsRolled() {
        Classification c = latest(facts(OLD), NodeVerdict.STALE);
        JoinedDecision.Roll r = (JoinedDecision.Roll) decide(c, Action.REBOOT, NodeEventStage.ROLLING, false);
        assertEquals(new RunEvent.JoinedDecided("w9", c, RunEvent.JoinedRoute.ROLLED), r.event());
        assertEquals("w9", r.decided().node());
    }

    @Test
    void aWaitRestartIsCheckedWithItsLatestClassification() {
        Classification c = latest(facts(NEW), NodeVerdict.STALE);
        JoinedDecision.WaitRestart w = (JoinedDecision.WaitRestart) decide(c, Action.NONE, NodeEventStage.WAITING, false);
        assertSame(c, w.latest());
        assertEquals("w9", w.decided().node());
    }

    @Test
    void aNodeStillWaitedForWhenTheRunEndsSaysWhy() {
        assertEquals("joined during the run; not attempted: the rollout ended while waiting for its attestation (interrupted)",
                JoinedDecision.endedWhileWaiting("interrupted"));
    }

    @Test
    void everyPermittedDecisionTypeReachesItsOwnHandlerMethod() {
        OneOfEach.assertEachReachesItsOwnMethod(JoinedDecision.class, JoinedDecision.Handler.class, type -> null,
                JoinedDecision::dispatch);
    }

    @Test
    void aNullDecisionFailsLoudly() {
        assertThrows(IllegalStateException.class, () -> JoinedDecision.dispatch(null, null));
    }

    private static JoinedDecision decide(Classification c, Action action, NodeEventStage stage, boolean stopping) {
        return JoinedDecision.decide(c, c.node(), action, stage, stopping, ATTEST, REGISTRY);
    }

    private static String describe(JoinedDecision d) {
        if (d instanceof JoinedDecision.Skip) {
            return "skip";
        } else if (d instanceof JoinedDecision.TimedOut) {
            return "timed out";
        } else if (d instanceof JoinedDecision.NotAttempted n) {
            return "not attempted, " + describe(n.decided());
        } else if (d instanceof JoinedDecision.AfterTheWait a) {
            return "after the wait, " + describe(a.decided());
        } else if (d instanceof JoinedDecision.Roll r) {
            return "roll, " + describe(r.decided());
        } else if (d instanceof JoinedDecision.WaitRestart w) {
            return "wait-restart, " + describe(w.decided());
        }
        throw new AssertionError("no description for " + d);
    }

    private static String describe(JoinedDecision.Decided d) {
        return d.decision() + " (" + d.action().why() + ")" + (d.announced() ? " announced" : "");
    }

    private static Classification latest(NodeFacts f, NodeVerdict verdict) {
        return new Classification(f, verdict, "Because", "the detail", false, null);
    }

    private static NodeFacts facts(String osImage) {
        return NodeFacts.of(new NodeBuilder().withNewMetadata().withName("w9").endMetadata()
                .withNewStatus().withNewNodeInfo().withOsImage(osImage).endNodeInfo().endStatus().build());
    }
}
