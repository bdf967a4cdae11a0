package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.kube.Fabric8NodeApi;
import dev.crifresh.agent.kube.KubernetesClients;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.mockapi.CrudApiServer;
import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.scenario.Credential;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's {@code run} mode against the real containerd and registry, publishing to fabric8's mock API in
 * CRUD mode: the condition is True while containerd holds the current credential, turns False after Talos
 * rewrites the files in place (the real pull fails 401 then), and True again after a restart (the pull
 * succeeds). Prints the time from the rewrite to the False condition in the API, against the agent's p99
 * target of 250 ms; asserts only that it happens (timing is measured, not asserted: the machine is shared).
 *
 * <p>Threat model: defended side — the platform's own write path (Talos rewriting its files in place).
 */
class RunModeTest {
    private static final String NODE = "reality-node";
    private static final int ROTATIONS = 3;

    @TempDir
    Path tmp;
    private Vertx vertx;
    private KubernetesMockServer server;
    private KubernetesClient client;
    private RealRegistry registry;
    private final List<RealContainerd> started = new ArrayList<>();
    private AgentRuntime agent;
    private boolean locked;
    private ContainerdGeneration generation;

    @BeforeEach
    void setUp() {
        RealityGate.require();
        MachineLock.acquire();
        locked = true;
        CriProcesses.awaitNoneForeign(List.of());
        vertx = Vertx.vertx();
        server = CrudApiServer.crud();
        try (KubernetesClient bootstrap = server.createClient()) {
            client = KubernetesClients.create(vertx, bootstrap.getConfiguration());
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        if (agent != null) {
            agent.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        started.forEach(RealContainerd::close);
        if (registry != null) {
            registry.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
        if (vertx != null) {
            vertx.close();
        }
        if (locked) {
            MachineLock.release();
        }
    }

    static Stream<ContainerdGeneration> generations() {
        return ContainerdGeneration.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("generations")
    void conditionFollowsTheRealContainerd(ContainerdGeneration generation) throws Exception {
        runRotations(generation, false, "ContainerdStartedAfterConfig", "ConfigChangedAfterContainerdStart");
    }

    /** On containerd 2.x the status carries no registry config: the stamp rules decide, with their reasons. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("generations")
    void conditionFollowsTheRealContainerdWithTheRuntimeStatusProof(ContainerdGeneration generation) throws Exception {
        if (generation.two()) {
            runRotations(generation, true, "ContainerdStartedAfterConfig", "ConfigChangedAfterContainerdStart");
        } else {
            runRotations(generation, true, "RuntimeStatusMatchesConfig", "RuntimeCredentialDiffers");
        }
    }

    private void runRotations(ContainerdGeneration generation, boolean criSocket, String freshReason,
            String staleReason) throws Exception {
        RealityGate.require(generation);
        this.generation = generation;
        int token = 0;
        Credential current = new Credential("deploy-bot", "run-" + token);
        registry = RealRegistry.start(tmp.resolve("registry"), current);
        String image = registry.push(OciLayout.write(tmp.resolve("oci"), "v1", "run mode"), "crifresh/probe", "v1");
        CriNode node = new CriNode(tmp.resolve("node"), generation.layout());
        node.render(registry.host(), current);
        TruthTableTest.settle(Instant.now());
        RealContainerd containerd = start(node);

        String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(bootId).endNodeInfo().endStatus().build()).create();
        SigningKey key = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
        AgentSettings settings = AgentSettings.defaults(NODE).withRoots(Path.of("/proc"), node.hostRoot())
                .withMetricsPort(-1)
                .withTiming(AgentSettings.DEFAULT_HEARTBEAT, AgentSettings.DEFAULT_VALIDITY, Duration.ofMillis(500),
                        AgentSettings.DEFAULT_DEBOUNCE)
                .withCriSocket(criSocket ? node.socket() : null);
        agent = AgentRuntime.start(vertx, new Fabric8NodeApi(client), settings, key, "reality-run-fingerprint-key-32-bytes!!".getBytes(),
                HostClock.system(Path.of("/proc"))).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        awaitCondition("True", freshReason);
        assertTrue(containerd.cri().pull(image).ok());

        List<Long> latenciesMs = new ArrayList<>();
        for (int i = 0; i < ROTATIONS; i++) {
            current = new Credential("deploy-bot", "run-" + (++token));
            registry.rotate(current);
            long written = System.nanoTime();
            node.render(registry.host(), current);
            awaitCondition("False", staleReason);
            latenciesMs.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written));
            CriClient.Pull refused = containerd.cri().pull(image);
            assertTrue(refused.unauthorized(), "stale, and the real pull must fail 401: " + refused.detail());

            containerd.close();
            started.remove(containerd);
            TruthTableTest.settle(Instant.now());
            containerd = start(node);
            // The agent sees the new process at its next poll, possibly before containerd's CRI service answers:
            // then the status is unavailable and the ordering proves it fresh (the next evaluation asks again).
            awaitCondition("True", freshReason, "ContainerdStartedAfterConfig");
            CriClient.Pull pull = containerd.cri().pull(image);
            assertTrue(pull.ok(), "fresh again after the restart, and the real pull must succeed: " + pull.detail());
        }
        System.out.println("run mode on " + generation + (criSocket ? " --cri-socket" : "") + ": rewrite in place → condition False"
                + " in the API after " + latenciesMs + " ms (max " + latenciesMs.stream().max(Long::compare).orElseThrow()
                + " ms; the agent's p99 target is 250 ms)");
    }

    /**
     * The DaemonSet's view of GENS_FINDINGS F1: containerd 2.2 on Talos 1.15's version 4 files refuses them and
     * exits; the platform restarts it (here back to back for 10 s). The API is polled every 20 ms; a {@code True}
     * condition there is a false fresh (no containerd ever loads these files, no pull can work). Reported as the
     * false fresh the agent's serving check (rule 1: containerd listens at its address) rules out: never {@code True}.
     */
    @org.junit.jupiter.api.Test
    void aContainerdRefusingItsConfigIsNeverPublishedFresh() throws Exception {
        generation = ContainerdGeneration.named("2.2");
        RealityGate.require(generation);
        CriNode node = new CriNode(tmp.resolve("node"), TalosConfigFiles.Layout.TALOS_1_15);
        node.render("registry.invalid", new Credential("deploy-bot", "run-0"));
        TruthTableTest.settle(Instant.now());
        String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(bootId).endNodeInfo().endStatus().build()).create();
        SigningKey key = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
        AgentSettings settings = AgentSettings.defaults(NODE).withRoots(Path.of("/proc"), node.hostRoot())
                .withMetricsPort(-1)
                .withTiming(AgentSettings.DEFAULT_HEARTBEAT, AgentSettings.DEFAULT_VALIDITY, Duration.ofMillis(500),
                        AgentSettings.DEFAULT_DEBOUNCE);
        agent = AgentRuntime.start(vertx, new Fabric8NodeApi(client), settings, key, "reality-run-fingerprint-key-32-bytes!!".getBytes(),
                HostClock.system(Path.of("/proc"))).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        awaitCondition("Unknown", "ContainerdNotFound");

        TalosRestarts restarts = TalosRestarts.start(node, generation);
        Map<String, Integer> published = new TreeMap<>();
        List<String> fresh = new ArrayList<>();
        try {
            Instant until = Instant.now().plusSeconds(10);
            while (Instant.now().isBefore(until)) {
                Node n = client.nodes().withName(NODE).get();
                n.getStatus().getConditions().stream()
                        .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).findFirst().ifPresent(c -> {
                            published.merge(c.getStatus() + "/" + c.getReason(), 1, Integer::sum);
                            if ("True".equals(c.getStatus())) {
                                fresh.add(c.getMessage());
                            }
                        });
                Thread.sleep(20);
            }
        } finally {
            restarts.close();
        }
        System.out.println("run mode, containerd 2.2 refusing version 4 files: " + restarts.refused().size()
                + " refused starts; the API showed (polls per status/reason) " + published);
        assertFalse(restarts.refused().isEmpty(), "containerd 2.2 never refused the version 4 files");
        assertTrue(fresh.isEmpty(), "True while containerd 2.2 refuses the files: " + published);
    }

    private RealContainerd start(CriNode node) {
        RealContainerd containerd = RealContainerd.start(node, generation);
        started.add(containerd);
        return containerd;
    }

    /** Polls the mock API every 20 ms until our condition has {@code status} and one of {@code reasons}. */
    private void awaitCondition(String status, String... reasons) {
        List<String> accepted = List.of(reasons);
        NodeCondition seen = Waits.until(Duration.ofSeconds(30), "condition " + status + "/" + accepted, () -> {
            Node n = client.nodes().withName(NODE).get();
            if (n == null || n.getStatus() == null) {
                return null;
            }
            return n.getStatus().getConditions().stream()
                    .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType()))
                    .filter(c -> status.equals(c.getStatus()) && accepted.contains(c.getReason()))
                    .findFirst().orElse(null);
        });
        assertTrue(accepted.contains(seen.getReason()), seen.getReason());
    }
}
