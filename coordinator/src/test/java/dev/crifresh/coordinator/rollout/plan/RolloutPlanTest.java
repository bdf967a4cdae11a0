package dev.crifresh.coordinator.rollout.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The pure plan every run and the {@code plan} command decide nodes with: one row per rule. */
public class RolloutPlanTest {
    private static final String TALOS_RESTARTS = "Talos (v1.14.1)";
    private static final String TALOS_OLD = "Talos (v1.13.4)";

    public static NodeFacts facts(String name, Role role, String owner, String osImage, boolean unavailable) {
        Map<String, String> annotations = owner == null ? Map.of() : Map.of(CrifreshAnnotations.ROLLOUT, owner);
        return new NodeFacts(name, "uid-" + name, "1", role, "boot", !unavailable, false, List.of("10.0.0.1"), annotations, null, osImage, NodeFacts.ReadyTimes.NONE,
                List.of());
    }

    public static Classification classified(NodeFacts f, NodeVerdict verdict) {
        return new Classification(f, verdict, "Reason", "detail of " + f.name(), false, null);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                // action, verdict at start, verdict now, owner left by an earlier run, osImage → step, decision, outcome
                Arguments.of(Action.REBOOT, NodeVerdict.FRESH, NodeVerdict.FRESH, null, null, RolloutPlan.Step.SKIP, Decision.SKIP, Outcome.SKIPPED),
                Arguments.of(Action.REBOOT, NodeVerdict.CONFIG_PENDING, NodeVerdict.FRESH, null, null, RolloutPlan.Step.BECAME_FRESH, Decision.WAIT, Outcome.BECAME_FRESH),
                Arguments.of(Action.REBOOT, NodeVerdict.STALE, NodeVerdict.STALE, null, null, RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.UNKNOWN, NodeVerdict.UNKNOWN, null, null, RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.CONFIG_PENDING, NodeVerdict.STALE, null, null, RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                Arguments.of(Action.NONE, NodeVerdict.STALE, NodeVerdict.STALE, null, null, RolloutPlan.Step.WAIT, Decision.WAIT, null),
                Arguments.of(Action.AUTO, NodeVerdict.STALE, NodeVerdict.STALE, null, TALOS_RESTARTS, RolloutPlan.Step.WAIT, Decision.WAIT, null),
                Arguments.of(Action.AUTO, NodeVerdict.STALE, NodeVerdict.STALE, null, TALOS_OLD, RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                Arguments.of(Action.AUTO, NodeVerdict.UNKNOWN, NodeVerdict.UNKNOWN, null, "not talos", RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                // an earlier run's node that may have rebooted is resumed whatever its verdict; one left draining is decided anew
                Arguments.of(Action.REBOOT, NodeVerdict.FRESH, NodeVerdict.FRESH, "old/rebooting", null, RolloutPlan.Step.RESUME, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.STALE, NodeVerdict.STALE, "old/verifying", null, RolloutPlan.Step.RESUME, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.STALE, NodeVerdict.STALE, "old/garbled!", null, RolloutPlan.Step.RESUME, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.STALE, NodeVerdict.STALE, "old/draining", null, RolloutPlan.Step.REBOOT, Decision.REBOOT, null),
                Arguments.of(Action.REBOOT, NodeVerdict.FRESH, NodeVerdict.FRESH, "old/draining", null, RolloutPlan.Step.SKIP, Decision.SKIP, Outcome.SKIPPED),
                // action none never resumes a reboot: the leftover is released and waited for
                Arguments.of(Action.NONE, NodeVerdict.STALE, NodeVerdict.STALE, "old/rebooting", null, RolloutPlan.Step.WAIT, Decision.WAIT, null));
    }

    @ParameterizedTest(name = "{0} {1}→{2} owner={3} os={4}: {5}")
    @MethodSource("rules")
    void eachNodeIsDecidedByItsRule(Action action, NodeVerdict start, NodeVerdict now, String owner, String os,
                                    RolloutPlan.Step step, Decision decision, Outcome outcome) {
        NodeFacts f = facts("n1", Role.WORKER, owner, os, false);
        RolloutPlan plan = RolloutPlan.decide(action, List.of(classified(f, start)), Map.of("n1", classified(f, now)), n -> f);
        RolloutPlan.NodePlan n = plan.nodes().get(0);
        assertEquals(step, n.step());
        assertEquals(decision, n.decision());
        assertEquals(outcome, n.outcome());
        assertEquals(step == RolloutPlan.Step.REBOOT || step == RolloutPlan.Step.RESUME, plan.reboots().contains(f));
        assertEquals(step == RolloutPlan.Step.WAIT, plan.waits().contains(f));
        assertEquals(owner != null && step != RolloutPlan.Step.RESUME, plan.leftovers().contains(f), "released first");
        assertEquals(now == NodeVerdict.FRESH && step != RolloutPlan.Step.RESUME, plan.fresh().contains("n1"));
    }

    @Test
    void aNodeDeletedSinceItWasClassifiedIsReportedDeleted() {
        NodeFacts f = facts("gone", Role.WORKER, null, null, false);
        RolloutPlan plan = RolloutPlan.decide(Action.REBOOT, List.of(classified(f, NodeVerdict.STALE)), Map.of(), n -> null);
        RolloutPlan.NodePlan n = plan.nodes().get(0);
        assertEquals(RolloutPlan.Step.DELETED, n.step());
        assertEquals(Outcome.DELETED, n.outcome());
        assertEquals("the node was deleted during the run", n.detail());
        assertTrue(plan.reboots().isEmpty());
    }

    @Test
    void aRebootWhoseConfigTurnedUpIsNotedAndAMissingLatestKeepsTheFirstVerdict() {
        NodeFacts a = facts("a", Role.WORKER, null, null, false);
        NodeFacts b = facts("b", Role.WORKER, null, null, false);
        RolloutPlan plan = RolloutPlan.decide(Action.REBOOT,
                List.of(classified(a, NodeVerdict.CONFIG_PENDING), classified(b, NodeVerdict.FRESH)),
                Map.of("a", classified(a, NodeVerdict.UNKNOWN)), Map.of("a", a, "b", b)::get);
        assertEquals("the config now holds the desired credential, containerd is unknown", plan.nodes().get(0).detail());
        assertEquals(RolloutPlan.Step.SKIP, plan.nodes().get(1).step());
    }

    @Test
    void rebootsAreOrderedResumedFirstThenUnavailableWorkersThenWorkersThenControlPlanes() {
        Map<String, NodeFacts> all = new LinkedHashMap<>();
        all.put("cp1", facts("cp1", Role.CONTROL_PLANE, null, null, false));
        all.put("w2", facts("w2", Role.WORKER, null, null, false));
        all.put("w1", facts("w1", Role.WORKER, null, null, false));
        all.put("w9", facts("w9", Role.WORKER, null, null, true));
        all.put("w5", facts("w5", Role.WORKER, "old/rebooting", null, false));
        RolloutPlan plan = RolloutPlan.decide(Action.REBOOT,
                all.values().stream().map(f -> classified(f, NodeVerdict.STALE)).toList(), Map.of(), all::get);
        assertEquals(List.of("w5", "w9", "w1", "w2", "cp1"), plan.reboots().stream().map(NodeFacts::name).toList());
        assertTrue(plan.controlPlanes());
        assertEquals(List.of("w9", "w1", "w2", "cp1"), RolloutPlan.rebootedHere(plan.reboots()).stream().map(NodeFacts::name).toList(),
                "a resumed node is neither checked nor tainted");
    }

    @Test
    void withActionAutoTheLeftoversAreSplitBetweenTheWaitAndTheReboots() {
        NodeFacts waits = facts("new-talos", Role.WORKER, "old/draining", TALOS_RESTARTS, false);
        NodeFacts reboots = facts("old-talos", Role.WORKER, "old/draining", TALOS_OLD, false);
        Map<String, NodeFacts> all = Map.of(waits.name(), waits, reboots.name(), reboots);
        RolloutPlan plan = RolloutPlan.decide(Action.AUTO,
                List.of(classified(waits, NodeVerdict.STALE), classified(reboots, NodeVerdict.STALE)), Map.of(), all::get);
        assertEquals(List.of(waits), plan.waitedLeftovers());
        assertEquals(List.of(reboots), plan.deferredLeftovers());
        assertTrue(plan.nodes().stream().allMatch(RolloutPlan.NodePlan::announced));
    }

    private static Node node(String name, boolean ready) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus()
                .build();
    }

    @Test
    void withoutFreshCapacityTheLeastLoadedStaleWorkerIsTheSeed() {
        List<NodeFacts> reboots = List.of(facts("w1", Role.WORKER, null, null, false), facts("w2", Role.WORKER, null, null, false),
                facts("cp1", Role.CONTROL_PLANE, null, null, false));
        RolloutPlan.Eviction eviction = RolloutPlan.eviction(StaleTaint.PREFER_NO_SCHEDULE, reboots,
                List.of(node("w1", true), node("w2", true), node("cp1", true), node("f1", false)), Set.of("f1"));
        assertTrue(eviction.seedNeeded(), "the only fresh node is not Ready");
        EvictionPlacement p = eviction.placement(new HashMap<>(Map.of("w1", 5, "w2", 2)));
        assertEquals("w2", p.seed());
        assertEquals(2, p.seedPods());
        assertEquals(List.of("w1", "w2", "cp1"), p.tainted());
    }

    @Test
    void withFreshCapacityThereIsNoSeedAndWithTheTaintOffNothingIsTainted() {
        List<NodeFacts> reboots = List.of(facts("w1", Role.WORKER, null, null, false), facts("w5", Role.WORKER, "old/rebooting", null, false));
        List<Node> selected = List.of(node("w1", true), node("w5", true), node("f1", true));
        RolloutPlan.Eviction on = RolloutPlan.eviction(StaleTaint.PREFER_NO_SCHEDULE, reboots, selected, Set.of("f1"));
        assertFalse(on.seedNeeded());
        assertEquals(List.of("w1"), on.names(), "a resumed node is not tainted");
        assertNull(on.placement(Map.of()).seed());
        assertEquals(List.of("f1"), on.placement(Map.of()).freshSchedulable());
        RolloutPlan.Eviction off = RolloutPlan.eviction(StaleTaint.OFF, reboots, selected, Set.of("f1"));
        assertFalse(off.seedNeeded());
        assertFalse(off.placement(Map.of()).taint().enabled());
        assertTrue(off.placement(Map.of()).tainted().isEmpty());
        assertNull(RolloutPlan.eviction(StaleTaint.PREFER_NO_SCHEDULE, List.of(), selected, Set.of()).placement(Map.of()),
                "nothing to reboot: no placement");
    }
}
