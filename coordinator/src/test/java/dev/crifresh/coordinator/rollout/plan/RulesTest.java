package dev.crifresh.coordinator.rollout.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.MaxUnavailable;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The pure rollout rules: budget, ordering, ownership. */
class RulesTest {

    private static NodeFacts node(String name, Role role, boolean ready, boolean cordoned, Map<String, String> annotations) {
        return new NodeFacts(name, "uid-" + name, "1", role, "boot", ready, cordoned, List.of(), annotations, null, null, NodeFacts.ReadyTimes.NONE, List.of());
    }

    private static NodeFacts worker(String name) {
        return node(name, Role.WORKER, true, false, Map.of());
    }

    @ParameterizedTest
    @CsvSource({"1,10,1", "3,10,3", "25%,10,2", "25%,3,1", "50%,6,3", "100%,4,4", "10%,5,1", "34%,3,1"})
    void maxUnavailableIsACountOrAPercentageRoundedDownButAtLeastOne(String flag, int nodes, int budget) {
        assertEquals(budget, MaxUnavailable.parse(flag).budget(nodes));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "abc", "", "0%", "101%", "1.5", "%"})
    void badMaxUnavailableIsRejectedNamingTheFlag(String flag) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MaxUnavailable.parse(flag));
        assertTrue(e.getMessage().startsWith("--max-unavailable"), e.getMessage());
    }

    @Test
    void budgetCountsNotReadyCordonedAndInProgressNodes() {
        List<NodeFacts> nodes = List.of(worker("a"), worker("b"), node("c", Role.WORKER, false, false, Map.of()),
                node("d", Role.WORKER, true, true, Map.of()), worker("e"));
        Map<String, String> unavailable = Budget.unavailable(nodes, Set.of("a"));
        assertEquals(Map.of("a", "in progress", "c", "NotReady", "d", "cordoned"), unavailable);
        assertFalse(Budget.workerFits("b", unavailable, 3));
        assertTrue(Budget.workerFits("b", unavailable, 4));
        // Starting a node that is already unavailable costs nothing extra.
        assertTrue(Budget.workerFits("d", unavailable, 3));
        assertEquals("max-unavailable budget of 3 is used by a (in progress), c (NotReady), d (cordoned)", Budget.describe(unavailable, 3));
    }

    @Test
    void controlPlanesWaitForWorkersForEachOtherAndForReadiness() {
        NodeFacts cp1 = node("cp1", Role.CONTROL_PLANE, true, false, Map.of());
        NodeFacts cp2 = node("cp2", Role.CONTROL_PLANE, false, false, Map.of());
        NodeFacts cp3 = node("cp3", Role.CONTROL_PLANE, true, false, Map.of());
        List<NodeFacts> all = List.of(cp1, cp2, cp3, worker("w"));
        assertEquals("workers go first", Budget.controlPlaneBlocker(cp1, all, Set.of(), true));
        assertEquals("control planes go one at a time, after cp3", Budget.controlPlaneBlocker(cp1, all, Set.of("cp3"), false));
        assertEquals("control-plane node cp2 is not Ready", Budget.controlPlaneBlocker(cp1, all, Set.of(), false));
        // The candidate itself may be NotReady.
        assertNull(Budget.controlPlaneBlocker(cp2, List.of(cp1, cp2, cp3), Set.of(), false));
    }

    @Test
    void orderResumesFirstThenUnavailableWorkersThenWorkersThenControlPlanes() {
        List<NodeFacts> nodes = List.of(
                node("cp-a", Role.CONTROL_PLANE, true, false, Map.of()),
                worker("w-b"),
                worker("w-a"),
                node("w-z-down", Role.WORKER, false, false, Map.of()),
                node("w-y-drain", Role.WORKER, true, true, Map.of(CrifreshAnnotations.ROLLOUT, "old/draining")),
                node("cp-x-boot", Role.CONTROL_PLANE, false, true, Map.of(CrifreshAnnotations.ROLLOUT, "old/rebooting")),
                // Not rebooted by the earlier run: takes its place among the control planes, after the workers.
                node("cp-b-drain", Role.CONTROL_PLANE, true, true, Map.of(CrifreshAnnotations.ROLLOUT, "old/draining")));
        assertEquals(List.of("cp-x-boot", "w-y-drain", "w-z-down", "w-a", "w-b", "cp-a", "cp-b-drain"),
                RolloutOrder.order(nodes).stream().map(NodeFacts::name).toList());
    }

    @Test
    void ownershipRoundTripsAndReadsUnknownPhasesAsMaybeRebooted() {
        Ownership o = Ownership.parse("run-1/verifying");
        assertEquals(new Ownership("run-1", Phase.VERIFYING), o);
        assertEquals("run-1/verifying", o.toString());
        assertNull(Ownership.parse(null));
        assertNull(Ownership.parse(" "));
        assertEquals(Phase.REBOOTING, Ownership.parse("run-1/exploding").phase());
        assertEquals(Phase.REBOOTING, Ownership.parse("run-1").phase());
        assertTrue(Ownership.parse("run-1/exploding").phaseUnreadable());
        assertTrue(Ownership.parse("run-1").phaseUnreadable());
        assertFalse(Ownership.parse("run-1/rebooting").phaseUnreadable());
        assertTrue(Phase.REBOOTING.mayHaveRebooted());
        assertTrue(Phase.VERIFYING.mayHaveRebooted());
        assertFalse(Phase.DRAINING.mayHaveRebooted());
    }
}
