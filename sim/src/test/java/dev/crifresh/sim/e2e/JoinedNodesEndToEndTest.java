package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.base.SimEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Nodes an autoscaler adds during the rollout (rollout hardening, point 5), end to end. */
class JoinedNodesEndToEndTest {

    @Test
    void joinersAreClassifiedAndHandledBeforeTheRunEnds() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("autoscaler-joins-during-rollout.yaml"));
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals(2, run.events().stream().filter(e -> e.kind() == SimEvent.Kind.NODE_JOINED).count(), run.events().toString());
        assertEquals(List.of("worker-new", "worker-late"), run.report().joinedDuringRun());
        assertEquals("skipped", run.node("worker-new").outcome().wire(), run.node("worker-new").detail());
        assertEquals("fresh", run.node("worker-new").verdict().wire());
        assertEquals("rebooted", run.node("worker-late").outcome().wire(), run.node("worker-late").detail());
        assertEquals("stale", run.node("worker-late").verdict().wire());
        assertTrue(run.node("worker-late").detail().contains("rebooted"), run.node("worker-late").detail());
        assertEquals(List.of("worker-a", "worker-b", "worker-late"), run.rebootRequested());
        assertEquals(4, run.report().nodes().size());
        assertTrue(run.progress().stream().anyMatch(l -> l.startsWith("final inventory: 4 selected node(s)")),
                run.progress().toString());
    }
}
