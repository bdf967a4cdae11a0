package dev.crifresh.sim.e2e;

import static dev.crifresh.sim.e2e.Runs.example;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Summary;
import dev.crifresh.sim.world.RebootRequest;
import dev.crifresh.sim.base.SimEvent;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example scenarios of docs/scenarios.md, with the real agents and the real coordinator. */
class ExampleScenariosTest {

    @Test
    void aFreshAutoscaledNodeIsSkippedAndTheOldOneRebooted() throws Exception {
        Runs.Finished run = Runs.rollout(example("fresh-autoscaled-node.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals("succeeded", run.report().result().wire());
        assertNode(run.node("worker-new"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", true);
        assertNode(run.node("worker-old"), "stale", "ConfigChangedAfterContainerdStart", "reboot", "rebooted", true);
        assertEquals(List.of("worker-old"), run.report().rebootOrder());
        assertEquals(new Summary(2, 1, 1, 0, 0, 1, 1, 0), run.report().summary());

        assertEquals(List.of("worker-old"), run.rebootRequested());
        assertEquals(1, run.nodes().get("worker-new").boots());
        assertEquals(2, run.nodes().get("worker-old").boots());
        assertEverythingTidy(run);
    }

    @Test
    void theMarkerSaysCurrentEverywhereButOnlyOneContainerdIsFresh() throws Exception {
        Runs.Finished run = Runs.rollout(example("marker-stamped-stale.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("cp-1"), "stale", "ConfigChangedAfterContainerdStart", "reboot", "rebooted", true);
        assertNode(run.node("worker-1"), "stale", "ConfigChangedAfterContainerdStart", "reboot", "rebooted", true);
        assertNode(run.node("worker-2"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", true);
        assertTrue(run.node("cp-1").markerContradicts());
        assertTrue(run.node("worker-1").markerContradicts());
        assertFalse(run.node("worker-2").markerContradicts());
        assertEquals(List.of("worker-1", "cp-1"), run.report().rebootOrder(), "workers before control planes");
        assertEquals(List.of("worker-1", "cp-1"), run.rebootRequested());
        assertEquals(1, run.nodes().get("worker-2").boots());
        assertEverythingTidy(run);
    }

    @Test
    void aRotationDuringTheDeployIsWaitedForAndNothingIsRebootedBeforeItsConfigHoldsIt() throws Exception {
        Runs.Finished run = Runs.rollout(example("rotation-during-deploy.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals("config-pending", run.node("worker-1").verdict().wire());
        assertEquals("config-pending", run.node("worker-2").verdict().wire());
        assertEquals("unknown", run.node("worker-3").verdict().wire());
        for (String name : List.of("worker-1", "worker-2", "worker-3")) {
            assertEquals("rebooted", run.node(name).outcome().wire(), name);
        }
        assertEquals(List.of("worker-1", "worker-2", "worker-3"), run.report().rebootOrder());
        assertEquals(run.report().rebootOrder(), run.rebootRequested());

        for (RebootRequest reboot : run.reboots()) {
            assertTrue(reboot.configHeldDesired(), reboot.node() + " was rebooted before its config held token-v3");
        }
        Instant lastRender = run.events().stream()
                .filter(e -> e.kind() == SimEvent.Kind.CONFIG_WRITTEN && e.node().equals("worker-2"))
                .map(SimEvent::at).findFirst().orElseThrow();
        assertTrue(run.reboots().get(0).at().isAfter(lastRender),
                "the first reboot waits until every pending config has landed");
        assertEverythingTidy(run);
    }

    @Test
    void boardsWithoutARealTimeClockAreOrderedInTheClockOfContainerdsSocket() throws Exception {
        Runs.Finished run = Runs.rollout(example("rtc-less-boards.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("worker-rtcless"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", true);
        assertTrue(run.node("worker-rtcless").detail().contains("socket-ordering"), run.node("worker-rtcless").detail());
        assertNode(run.node("worker-rtcless-patched"), "stale", "ConfigChangedAfterContainerdStart", "reboot",
                "rebooted", true);
        assertEquals(List.of("worker-rtcless-patched"), run.rebootRequested(), "rebooted once");
        assertEquals(1, run.nodes().get("worker-rtcless").boots());
        assertEquals(2, run.nodes().get("worker-rtcless-patched").boots());
        // accepted after its reboot, on a boot that came up near the epoch again
        VerificationResult.Valid after = assertInstanceOf(VerificationResult.Valid.class,
                run.nodes().get("worker-rtcless-patched").attestation());
        assertEquals(Proof.SOCKET_ORDERING, after.claims().proof());
        assertEverythingTidy(run);
    }

    @Test
    void aSlowClockCannotHideAConfigWrittenAfterContainerdStarted() throws Exception {
        Runs.Finished run = Runs.rollout(example("clock-five-seconds-slow.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("worker-slow"), "stale", "ConfigChangedAfterContainerdStart", "reboot", "rebooted", true);
        assertEquals(List.of("worker-slow"), run.rebootRequested());
        VerificationResult.Valid after = assertInstanceOf(VerificationResult.Valid.class,
                run.nodes().get("worker-slow").attestation());
        assertEquals(Proof.SOCKET_ORDERING, after.claims().proof(), "the next boot, slow again, proves fresh");
        assertEverythingTidy(run);
    }

    @Test
    void aClockAnHourFastIsNeverFreshOnOrdering() throws Exception {
        Runs.Finished run = Runs.rollout(example("clock-an-hour-fast.yaml"));

        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.report().result().wire());
        assertNode(run.node("worker-fast"), "unknown", "ClockStepped", "reboot", "failed", true);
        assertEquals(List.of("worker-fast"), run.rebootRequested(), "rebooted once, then never fresh");
        Runs.NodeEnd end = run.nodes().get("worker-fast");
        assertEquals(2, end.boots());
        VerificationResult.Valid after = assertInstanceOf(VerificationResult.Valid.class, end.attestation());
        assertEquals("ClockStepped", after.claims().reason(), "the new boot is fast again");
        assertEquals(Proof.NONE, after.claims().proof());
    }

    @Test
    void midTalosUpgradeTheNodesOn114RestartContainerdThemselvesAndTheOthersAreRebooted() throws Exception {
        Runs.Finished run = Runs.rollout(example("talos-upgrade-in-progress.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals("succeeded", run.report().result().wire());
        for (String name : List.of("cp-1", "worker-1")) {
            NodeReport n = run.node(name);
            assertEquals("config-pending", n.verdict().wire(), name);
            assertEquals("wait", n.decision().wire(), name);
            assertEquals("wait-restart", n.action(), name + ": " + n.detail());
            assertEquals("became-fresh", n.outcome().wire(), name + ": " + n.detail());
            assertEquals(1, run.nodes().get(name).boots(), name + " was rebooted");
        }
        for (String name : List.of("worker-2", "worker-3")) {
            NodeReport n = run.node(name);
            assertEquals("reboot", n.decision().wire(), name);
            assertEquals("reboot", n.action(), name + ": " + n.detail());
            assertEquals("rebooted", n.outcome().wire(), name + ": " + n.detail());
            assertEquals(2, run.nodes().get(name).boots(), name);
        }
        assertEquals(List.of("worker-2", "worker-3"), run.rebootRequested().stream().sorted().toList());
        for (RebootRequest reboot : run.reboots()) {
            assertTrue(reboot.configHeldDesired(), reboot.node() + " was rebooted before its config held token-v3");
        }
        assertEquals(List.of("cp-1", "worker-1"), run.events().stream()
                .filter(e -> e.kind() == SimEvent.Kind.CONTAINERD_RESTARTED).map(SimEvent::node).sorted().toList(),
                "only the Talos 1.14 nodes restart containerd on the config change");
        assertTrue(run.progress().stream().anyMatch(l -> l.equals("worker-2: reboot (Talos v1.13.4 does not restart containerd on a config change)")),
                run.progress().toString());
        assertEverythingTidy(run);
    }

    @Test
    void customOsImageUnderActionAutoIsRebootedAndTheReportSaysWhy() throws Exception {
        Runs.Finished run = Runs.rollout(example("custom-os-image.yaml"));

        assertEquals(0, run.report().exitCode(), run.progress().toString());
        NodeReport talos = run.node("worker-talos");
        assertEquals("wait-restart", talos.action(), talos.detail());
        assertEquals("became-fresh", talos.outcome().wire(), talos.detail());
        assertTrue(talos.detail().startsWith("Talos v1.14.1 restarts containerd itself on a config change; "), talos.detail());
        assertEquals(1, run.nodes().get("worker-talos").boots(), "worker-talos was rebooted");
        for (String[] node : List.of(new String[] {"worker-custom", "Talos (custom-build)"}, new String[] {"worker-other", "Ubuntu 24.04.3 LTS"})) {
            NodeReport n = run.node(node[0]);
            assertEquals("reboot", n.decision().wire(), node[0]);
            assertEquals("reboot", n.action(), node[0] + ": " + n.detail());
            assertEquals("rebooted", n.outcome().wire(), node[0] + ": " + n.detail());
            assertTrue(n.detail().startsWith("not a Talos version crifresh can read: '" + node[1] + "'; "), n.detail());
            assertEquals(2, run.nodes().get(node[0]).boots(), node[0]);
        }
        assertEquals(List.of("worker-custom", "worker-other"), run.rebootRequested().stream().sorted().toList());
        for (RebootRequest reboot : run.reboots()) {
            assertTrue(reboot.configHeldDesired(), reboot.node() + " was rebooted before its config held token-v3");
        }
        assertEverythingTidy(run);
    }

    static void assertNode(NodeReport n, String verdict, String reason, String decision, String outcome,
            boolean markerSaysCurrent) {
        assertEquals(verdict, n.verdict().wire(), n.name() + " verdict: " + n.detail());
        assertEquals(reason, n.reason(), n.name() + " reason");
        assertEquals(decision, n.decision().wire(), n.name() + " decision");
        assertEquals(outcome, n.outcome().wire(), n.name() + " outcome: " + n.detail());
        assertEquals(markerSaysCurrent, n.markerSaysCurrent(), n.name() + " marker");
    }

    /**
     * After a successful run: every node attests fresh and valid for its current boot and its CRI containerd
     * (never the system one), and nothing is left cordoned or owned.
     */
    static void assertEverythingTidy(Runs.Finished run) {
        run.nodes().forEach((name, end) -> {
            VerificationResult.Valid valid = assertInstanceOf(VerificationResult.Valid.class, end.attestation(), name);
            assertEquals(end.bootId(), valid.claims().bootId(), name);
            assertEquals(end.criPid(), valid.claims().containerd().pid(), name + ": the CRI containerd's pid");
            assertEquals("True", end.conditionStatus(), name);
            assertFalse(end.cordoned(), name + " left cordoned");
            assertFalse(end.annotations().containsKey("crifresh.dev/rollout"), name + " still owned");
            assertFalse(end.annotations().containsKey("crifresh.dev/cordoned"), name);
        });
        assertTrue(run.events().stream().noneMatch(e -> e.kind() == SimEvent.Kind.PLATFORM_ERROR
                || e.kind() == SimEvent.Kind.FORBIDDEN_EVICTION), run.events().toString());
    }
}
