package dev.crifresh.sim.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.VerificationFailure;
import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.node.NodeObjects;
import dev.crifresh.sim.node.Boot;
import dev.crifresh.sim.node.HostRoot;
import dev.crifresh.sim.node.NodeClaims;
import dev.crifresh.sim.node.SimulatedHostClock;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioReader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SimulatedWorldTest {
    @RegisterExtension
    final SimulatedWorlds worlds = new SimulatedWorlds();
    private SimulatedWorld cluster;
    private final RecordingLauncher launcher = new RecordingLauncher();

    private SimulatedWorld build(String yaml) throws Exception {
        Scenario scenario = ScenarioReader.parse(yaml);
        cluster = worlds.track(SimulatedWorld.create(scenario, worlds.vertx(), (client, keys) -> launcher));
        return cluster;
    }

    @Test
    void nodesAreRegisteredAsATalosKubeletWould() throws Exception {
        build("""
                nodes:
                  - {name: cp-1, role: control-plane, marker: current, pods: 0}
                  - {name: w-1, marker: stale, cordoned: true, pods: 2}
                  - {name: w-2, marker: absent, ready: false}
                """);
        Node cp = cluster.client().nodes().withName("cp-1").get();
        Node w1 = cluster.client().nodes().withName("w-1").get();
        Node w2 = cluster.client().nodes().withName("w-2").get();
        assertTrue(cp.getMetadata().getLabels().containsKey(Role.CONTROL_PLANE_LABEL));
        assertFalse(w1.getMetadata().getLabels().containsKey(Role.CONTROL_PLANE_LABEL));
        assertEquals("current", cp.getMetadata().getAnnotations().get(ConditionContract.DEFAULT_MARKER_ANNOTATION));
        assertEquals("stale", w1.getMetadata().getAnnotations().get(ConditionContract.DEFAULT_MARKER_ANNOTATION));
        assertFalse(w2.getMetadata().getAnnotations().containsKey(ConditionContract.DEFAULT_MARKER_ANNOTATION));
        assertEquals(Boolean.TRUE, w1.getSpec().getUnschedulable());
        assertNull(cp.getSpec().getUnschedulable());
        assertEquals("True", ready(cp));
        assertEquals("False", ready(w2));
        Set<String> ips = List.of(cp, w1, w2).stream().map(SimulatedWorldTest::internalIp).collect(Collectors.toSet());
        assertEquals(3, ips.size());
        Set<String> uids = List.of(cp, w1, w2).stream().map(n -> n.getMetadata().getUid()).collect(Collectors.toSet());
        assertEquals(3, uids.size());
        assertEquals(cluster.node("w-1").uid(), w1.getMetadata().getUid());
        for (Node n : List.of(cp, w1, w2)) {
            assertEquals(Files.readString(cluster.node(n.getMetadata().getName()).host().procRoot()
                    .resolve("sys/kernel/random/boot_id")).trim(), n.getStatus().getNodeInfo().getBootID());
        }

        Map<String, List<Pod>> byNode = cluster.client().pods().inAnyNamespace().list().getItems().stream()
                .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName()));
        assertEquals(2, byNode.get("cp-1").size(), "a DaemonSet pod and a mirror pod");
        assertEquals(3, byNode.get("w-1").size(), "two ReplicaSet pods and a DaemonSet pod");
        assertTrue(byNode.get("cp-1").stream().anyMatch(p -> p.getMetadata().getAnnotations() != null
                && p.getMetadata().getAnnotations().containsKey("kubernetes.io/config.mirror")));
    }

    @Test
    void theHostRootHoldsTheScenariosTimes() throws Exception {
        build("""
                desiredCredential: {username: bot, password: new}
                nodes:
                  - {name: w-1, bootedSecondsAgo: 600, containerdStartedSecondsAfterBoot: 7.25,
                     configWrittenSecondsAfterBoot: 4.5, credential: {username: bot, password: old}}
                  - {name: w-2, bootedSecondsAgo: 600, configWrittenSecondsAfterBoot: -30}
                """);
        SimulatedNode w1 = cluster.node("w-1");
        Boot boot = w1.boot();
        Path etc = w1.host().root().resolve("etc/cri/conf.d");
        assertEquals(boot.wallTime().plusMillis(4500), Files.getLastModifiedTime(etc.resolve("cri.toml")).toInstant());
        assertEquals(boot.wallTime().plusMillis(4500),
                Files.getLastModifiedTime(etc.resolve("01-registries.part")).toInstant());
        assertEquals(boot.wallTime().plusSeconds(1),
                Files.getLastModifiedTime(w1.host().root().resolve("etc/cri/containerd.toml")).toInstant());
        assertTrue(Files.readString(etc.resolve("cri.toml")).contains("password = 'old'"));
        assertEquals(725, boot.criStartTicks());
        assertTrue(Files.readString(w1.host().procRoot().resolve(boot.criPid() + "/stat")).contains(" 0 725 "));
        Duration sinceBoot = Duration.between(boot.wallTime(), Instant.now());
        assertTrue(sinceBoot.compareTo(Duration.ofSeconds(600)) >= 0 && sinceBoot.compareTo(Duration.ofSeconds(630)) < 0);

        SimulatedNode w2 = cluster.node("w-2");
        assertEquals(w2.boot().wallTime().minusSeconds(30), Files.getLastModifiedTime(
                w2.host().root().resolve("etc/cri/containerd.toml")).toInstant(), "older than the boot, every file");
    }

    private static Instant mtime(SimulatedNode node, String nodePath) throws Exception {
        return Files.getLastModifiedTime(node.host().file(nodePath), java.nio.file.LinkOption.NOFOLLOW_LINKS).toInstant();
    }

    /**
     * A socket cannot be opened, so the JDK sets its times with {@code utimes}: microseconds (truncated, which
     * only makes the witness earlier — the strict direction).
     */
    private static Instant micros(Instant t) {
        return t.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    }

    private static boolean isSocket(SimulatedNode node) throws Exception {
        int mode = (Integer) Files.getAttribute(node.host().file(HostRoot.CONTAINERD_SOCKET), "unix:mode",
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
        return (mode & 0170000) == 0140000;
    }

    @Test
    void aClockOffAtBootStampsWhatHappensBeforeTheStepAndNothingAfterIt() throws Exception {
        build("""
                simulation: {rebootMillis: 100}
                nodes:
                  - name: w-1
                    bootedSecondsAgo: 600
                    configWrittenSecondsAfterBoot: 30
                    clock: {offsetAtBootSeconds: -5, steppedSecondsAfterBoot: 20, everyBoot: false}
                  - {name: w-2, bootedSecondsAgo: 600}
                """);
        cluster.startAgents();
        SimulatedNode w1 = cluster.node("w-1");
        Instant boot = w1.boot().wallTime();
        assertEquals(boot.plusSeconds(1).minusSeconds(5), mtime(w1, TalosConfigFiles.CONTAINERD_TOML),
                "the base config, at 1 s: before the step");
        assertEquals(boot.plusSeconds(30), mtime(w1, TalosConfigFiles.CRI_TOML), "the auth, at 30 s: after the step");
        assertTrue(isSocket(w1), "containerd's socket is a real socket inode");
        assertEquals(micros(boot.plusMillis(6040).minusSeconds(5)), mtime(w1, HostRoot.CONTAINERD_SOCKET),
                "bound 40 ms after containerd's start, before the step");
        assertEquals(600, w1.boot().criStartTicks(), "the kernel's start ticks know nothing of the wall clock");
        assertEquals(boot, launcher.starts.stream().filter(s -> s.host().root().equals(w1.host().root()))
                .findFirst().orElseThrow().clock().bootWallTime(), "the agent reads the true boot, after the step");
        SimulatedNode w2 = cluster.node("w-2");
        assertEquals(micros(w2.boot().wallTime().plusMillis(6040)), mtime(w2, HostRoot.CONTAINERD_SOCKET));

        cluster.requestReboot("w-1");
        Poll.until(Duration.ofSeconds(5), "w-1 down", () -> w1.state() != SimulatedNode.State.UP);
        Poll.until(Duration.ofSeconds(5), "w-1 up again", () -> w1.state() == SimulatedNode.State.UP);
        Instant again = w1.boot().wallTime();
        assertEquals(again.plusSeconds(1), mtime(w1, TalosConfigFiles.CONTAINERD_TOML), "everyBoot: false");
        assertEquals(micros(again.plusMillis(6040)), mtime(w1, HostRoot.CONTAINERD_SOCKET));
        assertTrue(isSocket(w1));
    }

    @Test
    void everyBootOfAnRtcLessNodeComesUpOffAgainAndReportsAfterTheStep() throws Exception {
        build("""
                simulation: {rebootMillis: 100}
                nodes:
                  - name: w-1
                    clock: {offsetAtBootSeconds: -1764000000, steppedSecondsAfterBoot: 20}
                """);
        SimulatedNode w1 = cluster.node("w-1");
        cluster.requestReboot("w-1");
        Poll.until(Duration.ofSeconds(5), "w-1 rebooted", () -> w1.boots() == 2 && w1.state() == SimulatedNode.State.UP);
        Instant boot = w1.boot().wallTime();
        Duration uptime = Duration.between(boot, Instant.now());
        assertTrue(uptime.compareTo(Duration.ofSeconds(22)) >= 0, "ready only after the step: " + uptime);
        assertEquals(boot.plusSeconds(3).minusSeconds(1764000000), mtime(w1, TalosConfigFiles.CRI_TOML));
        assertEquals(micros(boot.plusMillis(6040).minusSeconds(1764000000)), mtime(w1, HostRoot.CONTAINERD_SOCKET));
        assertTrue(mtime(w1, HostRoot.CONTAINERD_SOCKET).isBefore(Instant.parse("1972-01-01T00:00:00Z")));
    }

    @Test
    void nodesAtTalos114OrLaterRestartContainerdOnAConfigChangeAndReportTheirVersion() throws Exception {
        build("""
                desiredCredential: {username: bot, password: v3}
                nodes:
                  - {name: w-new, talosVersion: v1.14.1, credential: {username: bot, password: v2}, configUpdate: {afterSeconds: 0.1}}
                  - {name: w-old, credential: {username: bot, password: v2}, configUpdate: {afterSeconds: 0.1}}
                """);
        assertEquals("Talos (v1.14.1)", cluster.client().nodes().withName("w-new").get().getStatus().getNodeInfo().getOsImage());
        assertEquals("Talos (v1.13.4)", cluster.client().nodes().withName("w-old").get().getStatus().getNodeInfo().getOsImage());
        SimulatedNode fresh = cluster.node("w-new");
        SimulatedNode old = cluster.node("w-old");
        Boot freshBefore = fresh.boot();
        Boot oldBefore = old.boot();
        cluster.beginRun();
        Poll.until(Duration.ofSeconds(5), "containerd restarted on w-new", () -> fresh.boot().criPid() != freshBefore.criPid());
        Poll.until(Duration.ofSeconds(5), "w-old's config rewritten", () -> old.credential().equals(new Credential("bot", "v3")));
        assertEquals(new Credential("bot", "v3"), fresh.loadedCredential().orElseThrow());
        assertTrue(mtime(fresh, HostRoot.CONTAINERD_SOCKET).isAfter(mtime(fresh, TalosConfigFiles.CRI_TOML)),
                "the restarted containerd bound a new socket after the write");
        // w-old (Talos 1.13) never restarts containerd: give a restart ample time (4× its delay), then check.
        Thread.sleep(SimulatedWorld.CONTAINERD_RESTART_DELAY.multipliedBy(4).toMillis());
        assertEquals(oldBefore.criPid(), old.boot().criPid());
        assertEquals(new Credential("bot", "v2"), old.loadedCredential().orElseThrow());
    }

    @Test
    void agentsStartOnlyWhereTheScenarioRunsOneWithTheBootsClock() throws Exception {
        build("""
                nodes:
                  - {name: a, bootedSecondsAgo: 100}
                  - {name: b, agent: absent}
                  - {name: c, agent: expired}
                """);
        cluster.startAgents();
        assertEquals(List.of("a"), launcher.startedNodes());
        SimulatedHostClock clock = launcher.starts.get(0).clock();
        assertEquals(cluster.node("a").boot().wallTime(), clock.bootWallTime());
        Duration uptime = clock.uptime();
        assertTrue(uptime.compareTo(Duration.ofSeconds(100)) >= 0 && uptime.compareTo(Duration.ofSeconds(130)) < 0);
        assertEquals(cluster.node("a").host().root(), launcher.starts.get(0).host().root());
    }

    @Test
    void aRebootIsNotReadyThenANewBootWithConfigBeforeContainerd() throws Exception {
        build("""
                simulation: {rebootMillis: 200}
                nodes:
                  - {name: w-1, configWrittenSecondsAfterBoot: 80000}
                  - {name: w-2, reboot: never-returns}
                """);
        cluster.startAgents();
        SimulatedNode w1 = cluster.node("w-1");
        Boot before = w1.boot();
        cluster.requestReboot("w-1");
        // The request returns at once, as talosctl reboot --wait=false does; the node goes down right after.
        Poll.until(Duration.ofSeconds(5), "w-1 NotReady", () -> "False".equals(ready(cluster.client().nodes().withName("w-1").get())));
        Poll.until(Duration.ofSeconds(5), "w-1's agent stopped", () -> launcher.stops.get() == 1);
        assertFalse(Files.exists(w1.host().procRoot().resolve(Long.toString(before.criPid()))));

        Poll.until(Duration.ofSeconds(5), "w-1 up again", () -> w1.state() == SimulatedNode.State.UP);
        Boot after = w1.boot();
        // The kubelet registers the new boot beside the platform thread, as a real node's kubelet does.
        Poll.until(Duration.ofSeconds(5), "w-1 registered its new boot", () -> after.bootId().equals(
                cluster.client().nodes().withName("w-1").get().getStatus().getNodeInfo().getBootID()));
        Node node = cluster.client().nodes().withName("w-1").get();
        assertNotEquals(before.bootId(), after.bootId());
        assertEquals(after.bootId(), node.getStatus().getNodeInfo().getBootID());
        assertEquals("True", ready(node));
        assertNotEquals(before.criPid(), after.criPid());
        assertEquals(600, after.criStartTicks());
        Instant authWritten = Files.getLastModifiedTime(w1.host().root().resolve("etc/cri/conf.d/cri.toml")).toInstant();
        assertEquals(after.wallTime().plusSeconds(3), authWritten);
        assertTrue(after.criStartedAt().isAfter(authWritten));
        assertTrue(after.criStartedAt().isBefore(Instant.now()), "containerd started in the past");
        // Agents start beside the platform thread: the first two (at the start) in any order, then the new boot's.
        Poll.until(Duration.ofSeconds(5), "w-1's agent started again", () -> launcher.startedNodes().size() == 3);
        assertEquals(Set.of("w-1", "w-2"), Set.copyOf(launcher.startedNodes().subList(0, 2)));
        assertEquals("w-1", launcher.startedNodes().get(2));
        assertEquals(after.wallTime(), launcher.starts.get(2).clock().bootWallTime());
        assertEquals(List.of(new RebootRequest("w-1", cluster.rebootRequests().get(0).at(), true, 1)),
                cluster.rebootRequests());

        SimulatedNode w2 = cluster.node("w-2");
        cluster.requestReboot("w-2");
        // "Never comes back" cannot be polled for: wait a bounded time by which a returning node would
        // certainly be up again (twice its reboot time), then check it is still gone.
        Duration wouldBeBackWithin = cluster.scenario().simulation().reboot().multipliedBy(2);
        Thread.sleep(wouldBeBackWithin.toMillis());
        assertEquals(SimulatedNode.State.GONE, w2.state());
        assertEquals("False", ready(cluster.client().nodes().withName("w-2").get()));
        assertEquals(3, launcher.starts.size(), "no agent on a node that never came back");
    }

    @Test
    void aConfigUpdateRewritesInPlaceAndTalos114RestartsContainerdAfterIt() throws Exception {
        build("""
                desiredCredential: {username: bot, password: v3}
                simulation: {containerdRestartsOnConfigChange: true}
                nodes:
                  - {name: w-1, credential: {username: bot, password: v2}, configUpdate: {afterSeconds: 0.2}}
                  - {name: w-2, configUpdate: {afterSeconds: 0.2, credential: desired}}
                """);
        SimulatedNode w1 = cluster.node("w-1");
        Boot before = w1.boot();
        Instant w2Mtime = Files.getLastModifiedTime(cluster.node("w-2").host().root()
                .resolve("etc/cri/conf.d/cri.toml")).toInstant();
        cluster.beginRun();
        Poll.until(Duration.ofSeconds(5), "containerd restarted on w-1", () -> w1.boot().criPid() != before.criPid());
        Path cri = w1.host().root().resolve("etc/cri/conf.d/cri.toml");
        assertTrue(Files.readString(cri).contains("password = 'v3'"));
        assertEquals(new Credential("bot", "v3"), w1.credential());
        Instant written = Files.getLastModifiedTime(cri).toInstant();
        assertTrue(written.isAfter(cluster.runStartedAt()));
        Instant started = w1.boot().criStartedAt();
        assertTrue(started.isAfter(written.plusMillis(50)), "containerd restarted after the write: " + written
                + " < " + started);
        assertEquals(before.bootId(), w1.boot().bootId());
        assertEquals(w2Mtime, Files.getLastModifiedTime(cluster.node("w-2").host().root()
                .resolve("etc/cri/conf.d/cri.toml")).toInstant(), "identical content is not rewritten");
    }

    @Test
    void evictionsAreAnsweredForApplicationPodsOnly() throws Exception {
        build("nodes: [{name: w-1, pods: 2}]");
        String app = NodeObjects.appPodName("w-1", 0);
        assertTrue(cluster.client().pods().inNamespace(NodeObjects.APP_NAMESPACE).withName(app).evict());
        Poll.until(Duration.ofSeconds(5), "evicted pod " + app + " gone",
                () -> cluster.client().pods().inNamespace(NodeObjects.APP_NAMESPACE).withName(app).get() == null);
        assertEquals(1, cluster.evictions(NodeObjects.APP_NAMESPACE, app));
        KubernetesClientException gone = assertThrows(KubernetesClientException.class,
                () -> cluster.client().pods().inNamespace(NodeObjects.APP_NAMESPACE).withName(app).evict());
        assertEquals(404, gone.getCode(), "a pod that is gone cannot be evicted again");
        assertEquals(1, cluster.events().stream().filter(e -> e.kind() == SimEvent.Kind.POD_EVICTED).count());
        assertTrue(cluster.events().stream().noneMatch(e -> e.kind() == SimEvent.Kind.FORBIDDEN_EVICTION));

        assertTrue(cluster.client().pods().inNamespace(NodeObjects.SYSTEM_NAMESPACE).withName("kube-flannel-w-1")
                .evict(), "answered as a real API server would");
        assertTrue(cluster.client().pods().inNamespace(NodeObjects.SYSTEM_NAMESPACE).withName("kube-flannel-w-1")
                .get() != null, "a DaemonSet pod comes straight back");
        assertEquals(List.of("w-1: kube-system/kube-flannel-w-1"), cluster.events().stream()
                .filter(e -> e.kind() == SimEvent.Kind.FORBIDDEN_EVICTION).map(e -> e.node() + ": " + e.detail())
                .toList(), "and the attempt is on record");
    }

    @Test
    void everyHostileAttestationIsRejectedForItsOwnReason() throws Exception {
        build("""
                nodes:
                  - {name: forged-1, agent: forged}
                  - {name: tampered-1, agent: tampered}
                  - {name: copy-1, agent: wrong-node}
                  - {name: old-boot-1, agent: wrong-boot}
                  - {name: hung-1, agent: expired}
                  - {name: honest-1, agent: absent}
                """);
        cluster.writeHostileAttestations();
        AttestationVerifier verifier = new AttestationVerifier(cluster.keys().trust(), AttestationVerifier.DEFAULT_SKEW);
        Map<String, VerificationFailure> expected = Map.of(
                "forged-1", VerificationFailure.UNTRUSTED_KEY,
                "tampered-1", VerificationFailure.BAD_SIGNATURE,
                "copy-1", VerificationFailure.WRONG_NODE,
                "old-boot-1", VerificationFailure.WRONG_BOOT,
                "hung-1", VerificationFailure.EXPIRED);
        for (Map.Entry<String, VerificationFailure> e : expected.entrySet()) {
            SimulatedNode node = cluster.node(e.getKey());
            NodeCondition condition = cluster.condition(e.getKey()).orElseThrow();
            assertEquals("True", condition.getStatus(), "every hostile condition claims fresh");
            VerificationResult result = verifier.verify(AttestationMessage.token(condition.getMessage()).orElseThrow(),
                    new ExpectedNode(node.name(), node.uid(), node.boot().bootId(), condition.getStatus()), Instant.now());
            VerificationResult.Invalid invalid = assertInstanceOf(VerificationResult.Invalid.class, result, e.getKey());
            assertEquals(e.getValue(), invalid.failure(), e.getKey() + ": " + invalid.detail());
        }
        assertTrue(cluster.condition("honest-1").isEmpty());
        assertEquals("fresh", cluster.claims("tampered-1").orElseThrow().verdict().wire());

        SimulatedNode honest = cluster.node("honest-1");
        String genuine = new AttestationSigner(cluster.keys().agentKey()).sign(NodeClaims.of(honest,
                cluster.keys().fingerprintKey(), Reason.CONTAINERD_STARTED_AFTER_CONFIG, Instant.now()));
        assertTrue(verifier.verify(genuine, new ExpectedNode(honest.name(), honest.uid(), honest.boot().bootId(), "True"),
                Instant.now()).isValid(), "the same claims, honestly signed, are accepted");
    }

    private static String ready(Node node) {
        return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst()
                .orElseThrow().getStatus();
    }

    private static String internalIp(Node node) {
        return node.getStatus().getAddresses().stream().filter(a -> "InternalIP".equals(a.getType())).findFirst()
                .orElseThrow().getAddress();
    }
}
