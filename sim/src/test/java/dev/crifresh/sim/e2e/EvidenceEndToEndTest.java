package dev.crifresh.sim.e2e;

import static dev.crifresh.sim.e2e.ExampleScenariosTest.assertEverythingTidy;
import static dev.crifresh.sim.e2e.ExampleScenariosTest.assertNode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.report.NodeReport;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the agents prove and the coordinator does with it: freshness, markers, clocks, hostile attestations. */
class EvidenceEndToEndTest {

    @Test
    void aMarkerSayingStaleNeverForcesARebootOfAFreshNode() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                nodes:
                  - {name: w-fresh-stale-marker, bootedSecondsAgo: 400, marker: stale, pods: 2}
                  - {name: w-fresh-no-marker, bootedSecondsAgo: 400, marker: absent}
                """);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("w-fresh-stale-marker"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", false);
        assertNode(run.node("w-fresh-no-marker"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", false);
        assertEquals(List.of(), run.rebootRequested());
        assertEquals(3, run.nodes().get("w-fresh-stale-marker").podsLeft(), "no pod was evicted (2 + a DaemonSet pod)");
    }

    @Test
    void aConfigThatLooksOlderThanTheBootAndAnOrderingInsideTheMarginAreRebooted() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                coordinator: {maxUnavailable: 2}
                nodes:
                  - {name: w-clock, bootedSecondsAgo: 3600, configWrittenSecondsAfterBoot: -5,
                     containerdStartedSecondsAfterBoot: 6}
                  - {name: w-margin, bootedSecondsAgo: 3600, configWrittenSecondsAfterBoot: 5.97,
                     containerdStartedSecondsAfterBoot: 6}
                  - {name: w-clear, bootedSecondsAgo: 3600, configWrittenSecondsAfterBoot: 5.5,
                     containerdStartedSecondsAfterBoot: 6}
                """);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("w-clock"), "stale", "ClockAnomaly", "reboot", "rebooted", true);
        assertNode(run.node("w-margin"), "stale", "OrderingWithinMargin", "reboot", "rebooted", true);
        assertNode(run.node("w-clear"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", true);
        assertEquals(Set.of("w-clock", "w-margin"), Set.copyOf(run.rebootRequested()));
        assertEverythingTidy(run);
    }

    @Test
    void everyHostileAttestationLeadsToAReboot() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                coordinator: {maxUnavailable: 3}
                nodes:
                  - {name: w-honest, bootedSecondsAgo: 900}
                  - {name: w-forged, bootedSecondsAgo: 900, agent: forged}
                  - {name: w-tampered, bootedSecondsAgo: 900, configWrittenSecondsAfterBoot: 600, agent: tampered}
                  - {name: w-copy, bootedSecondsAgo: 900, agent: wrong-node}
                  - {name: w-old-boot, bootedSecondsAgo: 900, agent: wrong-boot}
                  - {name: w-hung, bootedSecondsAgo: 900, agent: expired}
                """);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertNode(run.node("w-honest"), "fresh", "ContainerdStartedAfterConfig", "skip", "skipped", true);
        for (String hostile : List.of("w-forged", "w-tampered", "w-copy", "w-old-boot", "w-hung")) {
            NodeReport n = run.node(hostile);
            assertEquals("unknown", n.verdict().wire(), hostile + ": " + n.detail());
            assertEquals("reboot", n.decision().wire(), hostile);
            assertEquals("rebooted", n.outcome().wire(), hostile + ": " + n.detail());
            assertEquals(2, run.nodes().get(hostile).boots(), hostile);
        }
        assertEquals(Set.of("w-forged", "w-tampered", "w-copy", "w-old-boot", "w-hung"),
                Set.copyOf(run.rebootRequested()));
        assertFalse(run.rebootRequested().contains("w-honest"));
        assertEverythingTidy(run);
    }

    /**
     * The installation, not the nodes: no node attests its boot (one agent absent, one signing with a key the trust
     * bundle does not hold), so the rollout stops before any cordon with exit 6 and the counts per cause. A forged
     * attestation is an attack the threat model covers; here it only proves it is counted, never trusted.
     */
    @Test
    void noNodeAttestingItsBootStopsTheRolloutBeforeAnyCordon() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                nodes:
                  - {name: w-silent, agent: absent}
                  - {name: w-forged, bootedSecondsAgo: 900, agent: forged}
                """);
        assertEquals(6, run.report().exitCode(), run.progress().toString());
        String error = run.report().error();
        assertTrue(error.contains("(2 nodes): "), error);
        assertTrue(error.contains("1 with no ContainerdConfigFresh condition"), error);
        assertTrue(error.contains("1 with signed by a key not in the trust bundle"), error);
        assertTrue(error.endsWith("pass --allow-no-attestations"), error);
        assertEquals(List.of(), run.rebootRequested());
        assertTrue(run.nodes().values().stream().noneMatch(Runs.NodeEnd::cordoned));
    }

    @Test
    void aNodeWithoutAnyAttestationIsUnknownAndPlannedForAReboot() throws Exception {
        Runs.Finished run = Runs.plan("""
                nodes:
                  - {name: w-silent, agent: absent}
                  - {name: w-fresh, bootedSecondsAgo: 600}
                """);
        assertEquals(0, run.report().exitCode());
        assertEquals("planned", run.report().result().wire());
        assertNode(run.node("w-silent"), "unknown", run.node("w-silent").reason(), "reboot", "not-attempted", true);
        assertNode(run.node("w-fresh"), "fresh", "ContainerdStartedAfterConfig", "skip", "not-attempted", true);
        assertEquals(List.of("w-silent"), run.report().rebootOrder());
        assertEquals(List.of(), run.rebootRequested(), "a plan reboots nothing");
        assertTrue(run.nodes().values().stream().noneMatch(Runs.NodeEnd::cordoned));
    }
}
