package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.sim.run.SimulationRun.Agents;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The scale harness's attestation responder ({@code OneShotAgentLauncher}, docs/performance.md) stands in for
 * the agent only where a node has to attest its boot: the coordinator must classify its nodes as it classifies
 * the real agents', and a rollout on it must reboot exactly the stale nodes and end with every node attesting
 * its current boot, verified by the real verifier. Inside the threat model's line: the tokens are the agent's
 * own claims signed with the agent's key; nothing here forges or replays one.
 */
class OneShotAgentsTest {
    private static final String CLUSTER = """
            coordinator: {maxUnavailable: 2, configTimeoutSeconds: 10, rebootTimeoutSeconds: 60, attestTimeoutSeconds: 60}
            simulation: {rebootMillis: 300, podTerminationMillis: 20}
            nodes:
              - {name: cp-1, role: control-plane, configWrittenSecondsAfterBoot: 600}
              - {name: worker-a, configWrittenSecondsAfterBoot: 600, pods: 2}
              - {name: worker-b, configWrittenSecondsAfterBoot: 600, pods: 2}
              - {name: worker-c, configWrittenSecondsAfterBoot: 600, pods: 1}
              - {name: worker-fresh-1}
              - {name: worker-fresh-2}
            """;

    @Test
    void theCoordinatorClassifiesOneShotAttestationsAsTheRealAgents() throws Exception {
        for (String scenario : List.of(CLUSTER, Runs.example("rtc-less-boards.yaml"), Runs.example("marker-stamped-stale.yaml"))) {
            Runs.Finished real = Runs.run(scenario, true, Agents.REAL);
            Runs.Finished oneShot = Runs.run(scenario, true, Agents.ONE_SHOT);
            assertEquals(verdicts(real), verdicts(oneShot), scenario);
        }
    }

    @Test
    void aRolloutRebootsExactlyTheStaleNodesAndEveryNodeAttestsItsCurrentBoot() throws Exception {
        Runs.Finished run = Runs.run(CLUSTER, false, Agents.ONE_SHOT);
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        List<String> reboots = run.rebootRequested();
        assertEquals(4, reboots.size(), reboots.toString());
        // two workers at a time, in any order; the control plane after every worker
        assertEquals(List.of("worker-a", "worker-b", "worker-c"), reboots.subList(0, 3).stream().sorted().toList());
        assertEquals("cp-1", reboots.get(3));
        run.nodes().forEach((name, end) -> {
            int boots = name.startsWith("worker-fresh") ? 1 : 2;
            assertEquals(boots, end.boots(), name);
            VerificationResult.Valid valid = assertInstanceOf(VerificationResult.Valid.class, end.attestation(), name);
            assertEquals(Verdict.FRESH, valid.claims().verdict(), name);
            assertEquals(end.bootId(), valid.claims().bootId(), name);
        });
    }

    private static Map<String, String> verdicts(Runs.Finished plan) {
        return plan.report().nodes().stream()
                .collect(Collectors.toMap(NodeReport::name, n -> n.verdict() + " " + n.reason()));
    }
}
