package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.gate.GateNote;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.sim.node.NodeObjects;
import dev.crifresh.sim.world.RebootRequest;
import dev.crifresh.sim.world.SimulatedWorld;
import dev.crifresh.sim.run.SimulationRun;
import dev.crifresh.sim.scenario.ScenarioReader;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import dev.crifresh.sim.base.SimEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rollout gates end to end: pull proof, etcd, alert and pod blockers, against the simulated cluster. */
class RolloutGatesTest {
    /** A node the coordinator must reboot: its config was rewritten long after containerd started. */
    private static final String STALE = "bootedSecondsAgo: 9000, configWrittenSecondsAfterBoot: 8000";

    @Test
    void thePullProofFailsANodeWhoseContainerdStillHoldsARevokedCredentialAlthoughItsFileIsCurrent() throws Exception {
        Runs.Finished run = Runs.rollout("""
                desiredCredential: {username: deploy-bot, password: token-v2}
                revokedCredentials: [{username: deploy-bot, password: token-v1}]
                simulation: {rebootMillis: 100}
                coordinator: {pullProof: rebooted, pullProofTimeoutSeconds: 10}
                nodes:
                  - {name: w-1, %s}
                  - {name: w-2, %s, containerdCredential: {username: deploy-bot, password: token-v1},
                     containerdCredentialSticks: true}
                  - {name: w-3, %s}
                """.formatted(STALE, STALE, STALE));
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.node("w-2").outcome().wire());
        String detail = run.node("w-2").detail();
        assertTrue(detail.contains("rebooted and attests fresh, but pull proof failed") && detail.contains("401 Unauthorized"),
                detail);
        List<String> order = run.rebootRequested();
        assertEquals("w-2", order.get(order.size() - 1), "the rollout stops at the failed proof: " + order);
        for (String before : order.subList(0, order.size() - 1)) {
            assertEquals("rebooted", run.node(before).outcome().wire(), run.node(before).detail());
            assertTrue(run.node(before).detail().contains("pull proof passed"), run.node(before).detail());
        }
        for (String after : List.of("w-1", "w-3")) {
            if (!order.contains(after)) {
                assertEquals("not-attempted", run.node(after).outcome().wire(), after);
            }
        }
        assertTrue(run.nodes().get("w-2").attestation() instanceof dev.crifresh.common.attest.VerificationResult.Valid v
                && "fresh".equals(v.claims().verdict().wire()), "w-2 attests fresh: only the pull tells");
        assertFalse(run.nodes().get("w-2").cordoned(), "no cordon left behind");
        // No bookkeeping of the run left behind; the marker (the platform's, whose default key is under crifresh.dev/) stays.
        assertTrue(run.nodes().get("w-2").annotations().keySet().stream().noneMatch(k -> k.startsWith("crifresh.dev/")
                && !k.equals(ConditionContract.DEFAULT_MARKER_ANNOTATION)), run.nodes().get("w-2").annotations().toString());
        assertEquals(1, run.nodes().get("w-2").podsLeft(), "only the DaemonSet pod: the probe pod is gone");
        assertTrue(run.events().stream().anyMatch(e -> e.kind() == SimEvent.Kind.IMAGE_PULL_FAILED && "w-2".equals(e.node())));
        assertTrue(run.report().gates().contains(new GateNote("pull-proof", "w-2", "failed", detailOf(run, "w-2"))));
        assertTrue(run.report().toJson().contains("\"gates\""));
    }

    @Test
    void pullProofAllChecksSkippedFreshNodesBeforeAnyReboot() throws Exception {
        Runs.Finished run = Runs.rollout("""
                revokedCredentials: [{username: deploy-bot, password: token-v1}]
                simulation: {rebootMillis: 100}
                coordinator: {pullProof: all}
                nodes:
                  - {name: w-fresh, containerdCredential: {username: deploy-bot, password: token-v1}}
                  - {name: w-stale, %s}
                """.formatted(STALE));
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals("failed", run.node("w-fresh").outcome().wire());
        assertTrue(run.node("w-fresh").detail().startsWith("skipped as fresh, but pull proof failed"), run.node("w-fresh").detail());
        assertEquals(List.of(), run.rebootRequested(), "nothing rebooted after a failed read-only proof");
        assertTrue(run.report().error().contains("nothing was rebooted"), run.report().error());
        assertEquals(1, run.nodes().get("w-fresh").podsLeft());
    }

    @Test
    void anUnhealthyEtcdMemberStopsTheControlPlanePhaseBeforeAnyControlPlaneReboot() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                nodes:
                  - {name: cp-1, role: control-plane, %s}
                  - {name: cp-2, role: control-plane, %s, etcd: unhealthy}
                  - {name: cp-3, role: control-plane, %s}
                  - {name: w-1, %s}
                """.formatted(STALE, STALE, STALE, STALE));
        assertEquals(1, run.report().exitCode(), run.progress().toString());
        assertEquals(List.of("w-1"), run.rebootRequested(), "workers first; no control plane rebooted");
        assertEquals("rebooted", run.node("w-1").outcome().wire());
        assertEquals("failed", run.node("cp-1").outcome().wire());
        assertTrue(run.node("cp-1").detail().contains("not rebooted: etcd is not healthy (etcd member ")
                && run.node("cp-1").detail().contains("on cp-2 (10.5.0.11) reports: etcdserver: no leader"), run.node("cp-1").detail());
        for (String cp : List.of("cp-1", "cp-2", "cp-3")) {
            assertFalse(run.nodes().get(cp).cordoned(), cp + " cordoned");
            assertEquals(1, run.nodes().get(cp).boots(), cp);
        }
        assertEquals("not-attempted", run.node("cp-2").outcome().wire());
    }

    @Test
    void healthyEtcdIsCheckedBeforeEachControlPlaneAndAgainAfterItReturns() throws Exception {
        Runs.Finished run = Runs.rollout("""
                simulation: {rebootMillis: 100}
                nodes:
                  - {name: cp-1, role: control-plane, %s}
                  - {name: cp-2, role: control-plane, %s}
                  - {name: cp-3, role: control-plane}
                """.formatted(STALE, STALE));
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals(List.of("cp-1", "cp-2"), run.rebootRequested());
        List<String> etcd = run.report().gates().stream().filter(g -> g.gate().equals("etcd"))
                .map(g -> g.node() + ":" + g.result() + ":" + g.detail().substring(0, g.detail().indexOf(':'))).toList();
        assertEquals(List.of("cp-1:passed:before its reboot", "cp-1:passed:after its return", "cp-2:passed:before its reboot",
                "cp-2:passed:after its return"), etcd);
    }

    @Test
    void aFiringAlertPausesTheRolloutThenItResumes() throws Exception {
        Cued run = rolloutWithCue("""
                alerts: [{name: NodeMaintenance}, {name: Watchdog}]
                simulation: {rebootMillis: 100}
                coordinator: {blockOnAlert: "Node.*", blockTimeoutSeconds: 60}
                nodes:
                  - {name: w-1, %s}
                  - {name: w-2, %s}
                """.formatted(STALE, STALE), "w-1",
                cluster -> cluster.prometheus().clear("NodeMaintenance"));
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertEquals(List.of("w-1", "w-2"), run.reboots().stream().map(r -> r.node()).toList());
        assertTrue(run.reboots().get(0).at().isAfter(run.cueAt()), "no reboot while NodeMaintenance fired");
        assertTrue(run.report().gates().stream().anyMatch(g -> g.gate().equals("alert") && g.node().equals("w-1")
                && g.result().equals("waited")), run.report().gates().toString());
    }

    @Test
    void anAlertThatNeverClearsTimesOutWithoutTouchingANode() throws Exception {
        Runs.Finished run = Runs.rollout("""
                alerts: [{name: NodeMaintenance}]
                simulation: {rebootMillis: 100}
                coordinator: {blockOnAlert: NodeMaintenance, blockTimeoutSeconds: 1}
                nodes: [{name: w-1, %s, pods: 1}]
                """.formatted(STALE));
        assertEquals(3, run.report().exitCode(), run.progress().toString());
        assertEquals("not-attempted", run.node("w-1").outcome().wire());
        assertTrue(run.node("w-1").detail().contains("blocked for 1s by alert NodeMaintenance; not touched"),
                run.node("w-1").detail());
        assertFalse(run.nodes().get("w-1").cordoned());
        assertEquals(2, run.nodes().get("w-1").podsLeft(), "not drained");
    }

    @Test
    void aBatchJobOnTheNodeHoldsItsRebootUntilTheJobFinishes() throws Exception {
        Cued run = rolloutWithCue("""
                simulation: {rebootMillis: 100}
                coordinator: {blockOnPodSelector: app=batch, blockTimeoutSeconds: 60}
                nodes:
                  - {name: w-1, %s, batchJob: {}}
                """.formatted(STALE), "w-1",
                cluster -> cluster.client().pods().inNamespace(NodeObjects.JOB_NAMESPACE)
                        .withName(NodeObjects.batchJobPodName("w-1")).delete());
        assertEquals(0, run.report().exitCode(), run.progress().toString());
        assertTrue(run.reboots().get(0).at().isAfter(run.cueAt()), "rebooted while the job ran");
    }

    /**
     * A rollout run until {@code node}'s roll first reports (its gate: blocked), then {@code cue} acts on the cluster,
     * then the rollout ends. Waits on the run's typed events, not on the text of its progress lines.
     */
    record Cued(Report report, List<RebootRequest> reboots, List<String> progress, Instant cueAt) {
    }

    private static Cued rolloutWithCue(String yaml, String node, Consumer<SimulatedWorld> cue) throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        List<RunEvent> events = new CopyOnWriteArrayList<>();
        try (SimulationRun run = SimulationRun.prepare(ScenarioReader.parse(yaml), e -> { })) {
            CompletableFuture<Report> report = CompletableFuture.supplyAsync(() -> {
                try {
                    return run.rollout(progress::add, events::add);
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            Poll.until(Duration.ofSeconds(120), node + " blocked by its gate", () -> events.stream()
                    .anyMatch(e -> e instanceof RunEvent.NodeProgress p && p.prefix().endsWith("] " + node)));
            Instant cueAt = Instant.now();
            cue.accept(run.cluster());
            Report done = report.get(180, TimeUnit.SECONDS);
            return new Cued(done, run.cluster().rebootRequests(), List.copyOf(progress), cueAt);
        }
    }

    @Test
    void planShowsWhichNodesAreBlockedAndWhatEtcdSays() throws Exception {
        Runs.Finished run = Runs.plan("""
                alerts: [{name: NodeMaintenance}]
                coordinator: {blockOnAlert: NodeMaintenance, blockOnPodSelector: app=batch, pullProof: rebooted}
                nodes:
                  - {name: cp-1, role: control-plane, %s, etcd: unhealthy}
                  - {name: w-1, %s, batchJob: {}}
                  - {name: w-2}
                """.formatted(STALE, STALE));
        assertEquals(0, run.report().exitCode());
        List<GateNote> gates = run.report().gates();
        assertTrue(gates.stream().anyMatch(g -> g.gate().equals("alert") && "w-1".equals(g.node()) && g.result().equals("blocked")
                && g.detail().contains("alert NodeMaintenance, pod jobs/nightly-report-w-1")), gates.toString());
        assertTrue(gates.stream().anyMatch(g -> g.gate().equals("etcd") && g.result().equals("failed")
                && g.detail().contains("cp-1")), gates.toString());
        assertTrue(gates.stream().noneMatch(g -> "w-2".equals(g.node())), "w-2 is fresh: a rollout would not touch it");
        assertTrue(gates.stream().anyMatch(g -> g.gate().equals("pull-proof")), gates.toString());
        assertEquals(List.of(), run.rebootRequested());
    }

    private static String detailOf(Runs.Finished run, String node) {
        return run.report().gates().stream().filter(g -> g.gate().equals("pull-proof") && node.equals(g.node()))
                .findFirst().orElseThrow().detail();
    }
}
