package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.base.SimEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where evicted pods land when the old credential is already revoked (rollout hardening, point 1): the
 * simulated ReplicaSet controller and scheduler re-create every evicted pod on a node they pick, and the
 * simulated kubelet pulls its image with that node's running containerd's credential.
 */
class EvictedPodsEndToEndTest {

    private static List<SimEvent> of(Runs.Finished run, SimEvent.Kind kind) {
        return run.events().stream().filter(e -> e.kind() == kind).toList();
    }

    @Test
    void withTheStaleTaintEveryEvictedPodLandsOnAFreshNodeAndPulls() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("revoked-old-credential.yaml"));
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals(List.of("worker-a", "worker-b", "worker-c"), run.report().rebootOrder());
        assertEquals(6, of(run, SimEvent.Kind.POD_EVICTED).size(), run.events().toString());
        List<SimEvent> scheduled = of(run, SimEvent.Kind.POD_SCHEDULED);
        assertEquals(6, scheduled.size(), "every evicted pod was replaced: " + run.events());
        assertEquals(List.of(), of(run, SimEvent.Kind.IMAGE_PULL_FAILED), "a replacement landed on a stale node");
        assertEquals(6, of(run, SimEvent.Kind.IMAGE_PULLED).size(), run.events().toString());
        // worker-a's pods can only go to worker-fresh: b and c are tainted and stale.
        for (SimEvent e : scheduled.subList(0, 2)) {
            assertEquals("worker-fresh", e.node(), scheduled.toString());
        }
        assertTrue(run.progress().stream().anyMatch(l -> l.startsWith(
                "evicted pods: tainting crifresh.dev/stale:PreferNoSchedule on worker-a, worker-b, worker-c; fresh schedulable"
                        + " nodes for evicted pods: worker-fresh")), run.progress().toString());
        for (var end : run.nodes().entrySet()) {
            assertFalse(end.getValue().cordoned(), end.getKey());
        }
    }

    @Test
    void withoutItEvictedPodsLandOnStaleNodesAndCannotPull() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("revoked-old-credential.yaml")
                + "coordinator: {staleTaint: \"off\"}\n");
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        List<SimEvent> failed = of(run, SimEvent.Kind.IMAGE_PULL_FAILED);
        assertFalse(failed.isEmpty(), "the scenario must show the problem the taint solves: " + run.events());
        assertTrue(failed.stream().allMatch(e -> e.detail().contains("401 Unauthorized")), failed.toString());
    }

    @Test
    void withoutFreshCapacityTheEmptyStaleWorkerIsTheSeedAndEveryPodPulls() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("revoked-no-fresh-capacity.yaml"));
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals("worker-b", run.report().rebootOrder().get(0));
        assertEquals("worker-b", run.report().placement().seed());
        List<SimEvent> requested = of(run, SimEvent.Kind.REBOOT_REQUESTED);
        List<SimEvent> back = of(run, SimEvent.Kind.REBOOTED);
        assertTrue(back.get(0).node().equals("worker-b") && !back.get(0).at().isAfter(requested.get(1).at()),
                "the seed is back before any other reboot is requested: " + run.events());
        assertEquals(List.of(), of(run, SimEvent.Kind.IMAGE_PULL_FAILED), run.events().toString());
        assertEquals(5, of(run, SimEvent.Kind.IMAGE_PULLED).size(), run.events().toString());
    }
}
