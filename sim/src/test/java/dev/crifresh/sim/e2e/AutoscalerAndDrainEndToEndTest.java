package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.base.SimEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** kubectl drain's refusals and the cluster autoscaler (issue 43, points 4 and 5), end to end with the real agents. */
class AutoscalerAndDrainEndToEndTest {

    @Test
    void nodesWhoseDrainWouldLosePodsAreReportedAndTheRestIsRolled() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("drain-would-lose-pods.yaml"));
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.node("worker-a").outcome().wire());
        assertTrue(run.node("worker-a").detail().contains("apps/worker-a-bare-0 (declares no controller, --force)"),
                run.node("worker-a").detail());
        assertEquals("failed", run.node("worker-b").outcome().wire());
        assertTrue(run.node("worker-b").detail().contains("apps/worker-b-scratch-0 (has emptyDir data, --delete-emptydir-data)"),
                run.node("worker-b").detail());
        assertEquals("rebooted", run.node("worker-c").outcome().wire(), run.node("worker-c").detail());
        assertEquals(List.of("worker-c"), run.rebootRequested());
        assertTrue(run.events().stream().noneMatch(e -> e.kind() == SimEvent.Kind.POD_EVICTED
                && (e.detail().contains("bare") || e.detail().contains("scratch"))), run.events().toString());
    }

    @Test
    void forceAndDeleteEmptyDirDataRollThemLikeKubectl() throws Exception {
        String yaml = Runs.example("drain-would-lose-pods.yaml") + "coordinator: {force: true, deleteEmptyDirData: true}\n";
        Runs.Finished run = Runs.rollout(yaml);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals(List.of("worker-a", "worker-b", "worker-c"), run.rebootRequested());
    }

    @Test
    void leavingNodesAreNotRolledAndADeletedNodeDoesNotFailTheRun() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("autoscaler-scales-down.yaml"));
        assertEquals(0, run.report().exitCode(), run.progress() + "\n" + run.report().toJson());
        assertEquals("leaving", run.node("worker-a").outcome().wire());
        assertTrue(run.node("worker-a").detail().contains("ToBeDeletedByClusterAutoscaler"), run.node("worker-a").detail());
        assertEquals("leaving", run.node("worker-b").outcome().wire());
        assertTrue(run.node("worker-b").detail().contains("DeletionCandidateOfClusterAutoscaler"), run.node("worker-b").detail());
        assertEquals("deleted", run.node("worker-c").outcome().wire(), run.node("worker-c").detail());
        assertEquals("rebooted", run.node("worker-d").outcome().wire(), run.node("worker-d").detail());
        assertEquals(List.of("worker-c", "worker-d"), run.rebootRequested());
        assertEquals(1, run.events().stream().filter(e -> e.kind() == SimEvent.Kind.NODE_DELETED).count());
    }

    @Test
    void aNodeJoiningWithTheOldCredentialFailsTheRunAfterTheOthersNamingTheMachineConfig() throws Exception {
        Runs.Finished run = Runs.rollout(Runs.example("autoscaler-old-template.yaml"));
        assertEquals(3, run.report().exitCode(), run.progress().toString());
        assertEquals("rebooted", run.node("worker-a").outcome().wire(), run.node("worker-a").detail());
        assertEquals("failed", run.node("worker-new").outcome().wire());
        assertTrue(run.report().error().contains("node group's machine config"), run.report().error());
    }
}
