package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The effect runner of a node's roll with fake interfaces and a {@link ManualTicker}: what it sends, what it does not
 * read again, the answers it drops, and the fence it passes before each call. No Vert.x, no sleeping.
 */
class NodeRunnerTest extends NodeRunnerFixture {
    @Test
    void aWholeRollReadsTheNodeOnlyForTheLastMomentCheck() {
        NodeRunner roll = host.roll();
        roll.start();
        assertTrue(roll.finished() == false && host.driverCalls.size() == 1, host.lines.toString());
        host.driverCalls.get(0).complete();
        nodes.reboot("boot-2");
        roll.onUpdate(); // back: phase verifying
        host.verdict = NodeVerdict.FRESH;
        nodes.attest("m-new");
        roll.onUpdate();
        assertEquals(Outcome.REBOOTED, roll.outcome(), host.lines.toString());
        assertInstanceOf(NodeEnd.Rebooted.class, roll.end());
        assertEquals(1, nodes.gets, "only the last-moment check reads the node: every patch is decided on the run's copy");
        assertEquals(java.util.Arrays.asList("draining", "rebooting", "verifying", null), nodes.ownershipAfterEachPatch);
        assertNull(nodes.current.getSpec().getUnschedulable(), "uncordoned");
        assertEquals(List.of(EventReason.CORDONED, EventReason.DRAINING, EventReason.DRAINED, EventReason.REBOOT_REQUESTED,
                EventReason.RETURNED, EventReason.FRESH, EventReason.UNCORDONED), host.events);
        assertEquals(List.of(roll), host.finished);
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    @Test
    void aStaleCopyIsRefusedAndReadAgain() {
        host.cacheStale = true;
        NodeRunner roll = host.roll();
        roll.start();
        assertEquals(1, nodes.refusals, "the claim decided on the stale copy was refused by its guard");
        assertEquals(2, nodes.gets, "then read again (and once for the last-moment check)");
        assertEquals(1, host.driverCalls.size());
    }

    @Test
    void anAnswerForAStateTheRollLeftIsDropped() {
        NodeRunner roll = host.roll();
        roll.start();
        roll.abandon("interrupted");
        host.driverCalls.get(0).complete();
        assertEquals(new NodeEnd.Abandoned("interrupted while rebooting; a rerun resumes from " + CrifreshAnnotations.ROLLOUT,
                Outcome.FAILED), roll.end());
        assertFalse(host.events.contains(EventReason.REBOOT_REQUESTED), "the late driver answer is dropped");
        assertTrue(host.finished.isEmpty());
    }

    @Test
    void theTimersRunOnTheTicker() {
        NodeRunner roll = host.roll();
        roll.start();
        host.driverCalls.get(0).complete();
        ticker.advance(host.settings.timeouts().reboot().minusSeconds(1));
        assertNull(roll.end());
        ticker.advance(Duration.ofSeconds(2));
        NodeEnd end = roll.end();
        assertInstanceOf(NodeEnd.MayHaveRebooted.class, end);
        assertTrue(end.why().startsWith("did not return Ready with a new boot id within 10m"), end.why());
        assertEquals("run-t/rebooting", nodes.current.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT),
                "left owned: a rerun waits for it");
    }

    @Test
    void aRefusedRecordIsCheckedAgainOnTheNodeReadAgain() {
        nodes.refuseNext = 1; // the claim lands; the phase rebooting patch is refused once (injected)
        NodeRunner roll = host.roll();
        nodes.refuseFrom = 2;
        roll.start();
        assertEquals(1, host.driverCalls.size(), host.lines.toString());
        assertEquals("run-t/rebooting", nodes.current.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
    }

    /** Every permitted effect type reaches a branch of its own in the runner, none its loud final one. */
    @Test
    void everyPermittedEffectTypeIsCarriedOut() {
        List<NodeEffect> effects = OneOfEach.of(NodeEffect.class, this::sample);
        assertEquals(OneOfEach.permitted(NodeEffect.class).size(), effects.size());
        for (NodeEffect effect : effects) {
            NodeRunner roll = host.roll();
            try {
                roll.carryOut(effect);
            } catch (IllegalStateException e) {
                throw new AssertionError("NodeRunner does not carry out " + effect.getClass().getSimpleName(), e);
            }
        }
    }
}
