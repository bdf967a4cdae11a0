package dev.crifresh.sim.e2e;

import static dev.crifresh.sim.e2e.ExampleScenariosTest.assertEverythingTidy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.sim.base.SimEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rollout's stopping rules and the Talos >= 1.14 mode, end to end. */
class RolloutSafetyTest {

    @Test
    void aNodeThatNeverReturnsFailsTheRunAndNoLaterNodeIsTouched() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                coordinator: {rebootTimeoutSeconds: 2}
                nodes:
                  - {name: w-1, bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000, reboot: never-returns,
                     pods: 1}
                  - {name: w-2, bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000, pods: 2}
                  - {name: w-3, bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000, pods: 1}
                """);
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.report().result().wire());
        String first = run.report().rebootOrder().get(0);
        assertEquals(List.of(first), run.report().rebootOrder());
        assertEquals("w-1", first, "workers in name order");
        assertEquals("failed", run.node("w-1").outcome().wire());
        for (String later : List.of("w-2", "w-3")) {
            assertEquals("not-attempted", run.node(later).outcome().wire(), later);
            assertFalse(run.nodes().get(later).cordoned(), later + " was cordoned");
            assertEquals(1, run.nodes().get(later).boots(), later);
        }
        assertEquals(List.of("w-1"), run.rebootRequested());
        assertEquals(3, run.nodes().get("w-2").podsLeft(), "w-2's pods were not drained");
        assertTrue(run.events().stream().noneMatch(e -> e.kind() == SimEvent.Kind.POD_EVICTED
                && !e.node().equals("w-1")));
    }

    @Test
    void aNodeWithoutAnAgentIsRebootedAndThenFailsBecauseItCanNeverProveItIsFresh() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                coordinator: {attestTimeoutSeconds: 2}
                nodes:
                  - {name: w-1, agent: absent}
                  - {name: w-2, bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000}
                """);
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("unknown", run.node("w-1").verdict().wire());
        assertEquals("failed", run.node("w-1").outcome().wire(), run.node("w-1").detail());
        assertEquals("not-attempted", run.node("w-2").outcome().wire());
        assertEquals(List.of("w-1"), run.rebootRequested());
        assertEquals(2, run.nodes().get("w-1").boots());
        assertEquals(null, run.nodes().get("w-1").conditionStatus(), "no agent, no condition, even after the reboot");
    }

    @Test
    void aPendingConfigThatNeverLandsStopsTheRunBeforeAnyReboot() throws Exception {
        Runs.Finished run = Runs.rollout("""
                desiredCredential: {username: deploy-bot, password: token-v3}
                coordinator: {configTimeoutSeconds: 2}
                nodes:
                  - {name: w-pending, credential: {username: deploy-bot, password: token-v2}}
                  - {name: w-stale, bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000}
                  - {name: w-fresh, bootedSecondsAgo: 600}
                """);
        assertEquals(3, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.report().result().wire());
        assertEquals("config-pending", run.node("w-pending").verdict().wire());
        assertEquals("wait", run.node("w-pending").decision().wire());
        assertEquals("not-attempted", run.node("w-stale").outcome().wire());
        assertEquals(List.of(), run.report().rebootOrder());
        assertEquals(List.of(), run.rebootRequested(), "nothing is rebooted while a config is pending");
        assertTrue(run.nodes().values().stream().noneMatch(Runs.NodeEnd::cordoned));
    }

    @Test
    void withActionNoneAndTalos114NothingIsRebootedAndEveryNodeEndsFresh() throws Exception {
        Runs.Finished run = Runs.rollout("""
                desiredCredential: {username: deploy-bot, password: token-v3}
                coordinator: {action: none, configTimeoutSeconds: 10, attestTimeoutSeconds: 10}
                simulation: {containerdRestartsOnConfigChange: true}
                nodes:
                  - {name: w-1, credential: {username: deploy-bot, password: token-v2},
                     configUpdate: {afterSeconds: 0.5, credential: desired}}
                  - {name: w-2, credential: {username: deploy-bot, password: token-v2},
                     configUpdate: {afterSeconds: 1, credential: desired}}
                  - {name: w-3, bootedSecondsAgo: 600}
                """);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals("succeeded", run.report().result().wire());
        assertEquals(List.of(), run.rebootRequested());
        assertEquals("became-fresh", run.node("w-1").outcome().wire(), run.node("w-1").detail());
        assertEquals("became-fresh", run.node("w-2").outcome().wire(), run.node("w-2").detail());
        assertEquals("skipped", run.node("w-3").outcome().wire());
        run.nodes().forEach((name, end) -> {
            assertEquals(1, end.boots(), name + " rebooted");
            VerificationResult.Valid valid = (VerificationResult.Valid) end.attestation();
            assertEquals("fresh", valid.claims().verdict().wire(), name);
        });
        assertEquals(2, run.events().stream().filter(e -> e.kind() == SimEvent.Kind.CONTAINERD_RESTARTED).count());
        assertEverythingTidy(run);
    }
}
