package dev.crifresh.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.Fabric8NodeApi;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.agent.testing.TestClock;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole agent against fabric8's mock API server in CRUD mode (real HTTP, real watches). */
@SuppressWarnings("checkstyle:filelength") // AgentRuntimeInClusterTest reruns every test here on its client: one class to extend
class AgentRuntimeTest {
    private static final String NODE = "worker-1";
    private static final String BOOT_ID = "0b9d7f8e-1111-4222-8333-444455556666";
    private static final byte[] FINGERPRINT_KEY = "fingerprint-key-of-32-bytes-xxxx".getBytes();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private Vertx vertx;
    private MockApi api;
    private TestClock clock;
    private FakeProc proc;
    private TalosFiles files;
    private KeyPair keys;
    private SigningKey signingKey;
    private String nodeUid;
    private AgentRuntime runtime;

    @BeforeEach
    void setUp() throws Exception {
        vertx = Vertx.vertx();
        api = new MockApi(vertx);
        nodeUid = api.createNode(NODE, BOOT_ID).getMetadata().getUid();
        clock = new TestClock(Instant.now().minusSeconds(1000));
        Instant containerdStart = clock.boot().plusSeconds(500);
        proc = new FakeProc(dir.resolve("proc")).bootId(BOOT_ID).uptime(Duration.ofSeconds(1000))
                .process(100, FakeContainerd.TALOS_CRI, clock.ticksAt(containerdStart));
        files = new TalosFiles(dir.resolve("host")).writeAll("token-v1", containerdStart.minusSeconds(100));
        keys = Ed25519Keys.generate();
        signingKey = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(keys));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (runtime != null) {
            await(runtime.stop().toCompletionStage().toCompletableFuture());
        }
        closeNodeApi();
        api.close();
        vertx.close();
    }

    /**
     * The agent's API client: fabric8 here; {@link AgentRuntimeInClusterTest} runs every test again on the
     * DaemonSet's in-cluster client over HTTPS.
     */
    NodeApi nodeApi() throws Exception {
        return new Fabric8NodeApi(api.client());
    }

    /** After the agent stopped, before the mock API server goes. */
    void closeNodeApi() throws Exception {
    }

    Vertx vertx() {
        return vertx;
    }

    MockApi api() {
        return api;
    }

    Path dir() {
        return dir;
    }

    private AgentSettings settings(Duration heartbeat) {
        return AgentSettings.defaults(NODE).withRoots(proc.root(), files.hostRoot()).withMetricsPort(0)
                .withTiming(heartbeat, Duration.ofMinutes(15), Duration.ofMillis(200), Duration.ofMillis(20));
    }

    private AgentRuntime startAgent(AgentSettings settings) throws Exception {
        runtime = await(AgentRuntime.start(vertx, nodeApi(), settings, signingKey, FINGERPRINT_KEY, clock)
                .toCompletionStage().toCompletableFuture());
        return runtime;
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private NodeCondition ours() {
        return api.conditions(NODE).stream().filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType()))
                .findFirst().orElse(null);
    }

    private NodeCondition awaitOurs(String what, java.util.function.Predicate<NodeCondition> ok) {
        return Poll.until(WAIT, what, this::ours, c -> c != null && ok.test(c));
    }

    private VerificationResult verify(NodeCondition c) throws Exception {
        TrustBundle trust = TrustBundle.of(List.of(keys.getPublic()), FINGERPRINT_KEY);
        String token = AttestationMessage.token(c.getMessage()).orElse(null);
        return new AttestationVerifier(trust, AttestationVerifier.DEFAULT_SKEW)
                .verify(token, new ExpectedNode(NODE, nodeUid, BOOT_ID, c.getStatus()), Instant.now());
    }

    private String http(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + runtime.metricsPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body();
    }

    @Test
    void firstPublishIsASignedFreshConditionBesideKubeletsReady() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        NodeCondition c = awaitOurs("first publish", x -> true);
        assertEquals("True", c.getStatus());
        assertEquals("ContainerdStartedAfterConfig", c.getReason());
        assertEquals(c.getLastHeartbeatTime(), c.getLastTransitionTime());
        assertEquals(MockApi.kubeletReady(), api.conditions(NODE).get(0), "kubelet's Ready must survive");
        assertEquals(2, api.conditions(NODE).size());

        VerificationResult result = verify(c);
        AttestationClaims claims = assertInstanceOf(VerificationResult.Valid.class, result, result.toString()).claims();
        assertEquals(NODE, claims.sub());
        assertEquals(nodeUid, claims.nodeUid());
        assertEquals(BOOT_ID, claims.bootId());
        assertEquals(Verdict.FRESH, claims.verdict());
        assertEquals(Proof.ORDERING, claims.proof());
        assertEquals(100, claims.containerd().pid());
        // exp counts from the read of the evidence, iat is the signing time: a slow publish (a loaded
        // machine) signs a second or more after the read, never before it
        Duration lifetime = Duration.between(claims.iat(), claims.exp());
        assertTrue(lifetime.compareTo(Duration.ofMinutes(15)) <= 0
                && lifetime.compareTo(Duration.ofMinutes(15).minusSeconds(30)) >= 0, lifetime.toString());
        assertEquals(50, claims.marginMs());
        assertEquals(3, claims.config().files().size());
        assertEquals(CredentialFingerprint.of(FINGERPRINT_KEY, new RegistryAuth("ghcr.io", "deploy-bot", "token-v1", "")),
                claims.registries().get("ghcr.io"));
        assertTrue(!c.getMessage().contains("token-v1"), "never a credential in the condition");

        assertTrue(runtime.ready());
        assertEquals("200 ready\n", http("/readyz"));
        String attestation = http("/attestation");
        assertTrue(attestation.startsWith("200 {") && attestation.contains("\"sub\":\"" + NODE + "\""), attestation);
        String metrics = http("/metrics");
        assertTrue(metrics.contains("crifresh_node_fresh 1.0"), metrics);
        assertTrue(metrics.contains("crifresh_publishes_total{result=\"success\"} 1.0"), metrics);
    }

    @Test
    void heartbeatRepublishesWithoutMovingTheTransitionTime() throws Exception {
        startAgent(settings(Duration.ofMillis(1200)));
        NodeCondition first = awaitOurs("first publish", x -> true);
        NodeCondition later = awaitOurs("a heartbeat publish",
                c -> !c.getLastHeartbeatTime().equals(first.getLastHeartbeatTime()));
        assertEquals(first.getLastTransitionTime(), later.getLastTransitionTime());
        assertNotEquals(first.getMessage(), later.getMessage(), "a new attestation with a new iat");
        assertTrue(verify(later).isValid());
    }

    @Test
    void aConfigChangeFlipsTheConditionToStaleAndARestartBackToFresh() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        NodeCondition fresh = awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        files.rotate("token-v2");
        NodeCondition stale = awaitOurs("stale after the rotation", c -> "False".equals(c.getStatus()));
        assertEquals("ConfigChangedAfterContainerdStart", stale.getReason());
        assertEquals(stale.getLastHeartbeatTime(), stale.getLastTransitionTime(), "the status flipped at this publish");
        assertTrue(Instant.parse(stale.getLastTransitionTime()).compareTo(Instant.parse(fresh.getLastTransitionTime())) >= 0);
        AttestationClaims claims = ((VerificationResult.Valid) verify(stale)).claims();
        assertEquals(CredentialFingerprint.of(FINGERPRINT_KEY, new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")),
                claims.registries().get("ghcr.io"));
        // the publisher records the latency once the PATCH returned, which the Node may show first
        Poll.until(WAIT, "the detection latency recorded", () -> runtime.metrics().registry().scrape()
                .contains("crifresh_detection_latency_seconds_count 1"));

        // The reboot-free restart the coordinator would cause: containerd comes back after the write.
        Instant rotated = Instant.now();
        Poll.until(WAIT, "time passes", () -> Instant.now().isAfter(rotated.plusMillis(300)));
        proc.remove(100).process(200, FakeContainerd.TALOS_CRI, clock.ticksAt(Instant.now()));
        NodeCondition again = awaitOurs("fresh after the restart", c -> "True".equals(c.getStatus()));
        assertEquals(200, ((VerificationResult.Valid) verify(again)).claims().containerd().pid());
    }

    /**
     * A containerd that is still loading its config (or refusing it) is unknown; the poll evaluates it again once
     * it listens, long before the heartbeat (5 min here). Ordinary start-up, inside the threat model.
     */
    @Test
    void aContainerdStillStartingIsEvaluatedAgainOnceItListensNotAtTheHeartbeat() throws Exception {
        proc.notServing(100);
        startAgent(settings(Duration.ofMinutes(5)));
        NodeCondition starting = awaitOurs("unknown while containerd starts",
                c -> "ContainerdNotServing".equals(c.getReason()));
        assertEquals("Unknown", starting.getStatus());
        proc.serving(100, "/run/containerd/containerd.sock");
        NodeCondition fresh = awaitOurs("fresh once it listens", c -> "True".equals(c.getStatus()));
        assertEquals("ContainerdStartedAfterConfig", fresh.getReason());
    }

    /**
     * The kubelet witness (docs/design.md, "The rules"): a containerd that serves without its CRI service is fresh
     * by ordering, but the kubelet reports the runtime down in the Ready condition of the agent's own Node. The
     * agent sees that on its Node watch and publishes unknown at once (not at the heartbeat, 5 min here), and fresh
     * again once the kubelet reports Ready.
     */
    @Test
    void aKubeletThatReportsTheRuntimeDownMakesTheNodeUnknownUntilItIsReadyAgain() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        setKubeletReady(new NodeConditionBuilder(MockApi.kubeletReady()).withStatus("False").withReason("KubeletNotReady")
                .withMessage("container runtime is down").build());
        NodeCondition down = awaitOurs("unknown while the kubelet reports the runtime down",
                c -> "ContainerRuntimeNotReady".equals(c.getReason()));
        assertEquals("Unknown", down.getStatus());
        assertTrue(down.getMessage().contains("container runtime is down"), down.getMessage());
        VerificationResult result = verify(down);
        assertEquals(Verdict.UNKNOWN, assertInstanceOf(VerificationResult.Valid.class, result, result.toString())
                .claims().verdict());

        setKubeletReady(new NodeConditionBuilder(MockApi.kubeletReady()).withStatus("False")
                .withReason("KubeletNotReady").withMessage("container runtime network not ready: NetworkReady=false "
                        + "reason:NetworkPluginNotReady message:cni plugin not initialized").build());
        NodeCondition network = awaitOurs("fresh: a network plugin that is not ready is no witness",
                c -> "True".equals(c.getStatus()));
        assertEquals("ContainerdStartedAfterConfig", network.getReason());

        setKubeletReady(new NodeConditionBuilder(MockApi.kubeletReady()).withStatus("False").withReason("KubeletNotReady")
                .withMessage("container runtime not ready: RuntimeReady=false reason:x message:y").build());
        awaitOurs("unknown again", c -> "ContainerRuntimeNotReady".equals(c.getReason()));
        setKubeletReady(MockApi.kubeletReady());
        NodeCondition ready = awaitOurs("fresh once the kubelet reports Ready", c -> "True".equals(c.getStatus()));
        assertEquals("ContainerdStartedAfterConfig", ready.getReason());
    }

    /** Replaces the kubelet's Ready condition (the first entry, as the kubelet registers it). */
    private void setKubeletReady(NodeCondition ready) throws Exception {
        assertEquals("Ready", api.conditions(NODE).get(0).getType());
        api.client().nodes().withName(NODE).subresource("status").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"replace\",\"path\":\"/status/conditions/0\",\"value\":"
                        + new io.fabric8.kubernetes.client.utils.KubernetesSerialization().asJson(ready) + "}]");
    }

    @Test
    void aRemovedConditionIsPublishedAgain() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        awaitOurs("first publish", x -> true);
        int index = api.conditions(NODE).indexOf(ours());
        api.client().nodes().withName(NODE).subresource("status").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"remove\",\"path\":\"/status/conditions/" + index + "\"}]");
        assertEquals(1, api.conditions(NODE).size());
        NodeCondition restored = awaitOurs("the condition restored", x -> true);
        assertTrue(verify(restored).isValid());
        assertEquals(MockApi.kubeletReady(), api.conditions(NODE).get(0));
    }

    @Test
    void aForgedConditionIsReplaced() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        files.rotate("token-v2");
        NodeCondition stale = awaitOurs("stale", c -> "False".equals(c.getStatus()));
        // Someone with nodes/status access claims the node is fresh, with an attestation signed by another key.
        KeyPair other = Ed25519Keys.generate();
        String forgedToken = new dev.crifresh.common.attest.AttestationSigner(
                Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(other)))
                .sign(((VerificationResult.Valid) verify(stale)).claims());
        Node n = api.client().nodes().withName(NODE).get();
        List<NodeCondition> conditions = n.getStatus().getConditions();
        int index = conditions.indexOf(conditions.stream()
                .filter(x -> ConditionContract.CONDITION_TYPE.equals(x.getType())).findFirst().orElseThrow());
        NodeCondition forged = new NodeConditionBuilder(stale).withStatus("True").withReason("ContainerdStartedAfterConfig")
                .withMessage(AttestationMessage.format("all good", forgedToken)).build();
        n.getStatus().getConditions().set(index, forged);
        api.client().nodes().resource(n).updateStatus();
        NodeCondition replaced = awaitOurs("the forged condition replaced", c -> "False".equals(c.getStatus()));
        assertTrue(verify(replaced).isValid());
        assertEquals(2, api.conditions(NODE).size());
    }

    @Test
    void aSecondEntryOfOurTypeAppendedBySomeoneElseIsRemoved() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        files.rotate("token-v2");
        NodeCondition stale = awaitOurs("stale", c -> "False".equals(c.getStatus()));
        // A replay: an older entry of our type appended after ours, which a reader taking the last entry would see.
        Node n = api.client().nodes().withName(NODE).get();
        n.getStatus().getConditions().add(new NodeConditionBuilder(stale).withStatus("True")
                .withReason("ContainerdStartedAfterConfig").build());
        api.client().nodes().resource(n).updateStatus();
        Poll.until(WAIT, "exactly one entry of our type again", () -> api.conditions(NODE).stream()
                .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).count() == 1);
        NodeCondition left = awaitOurs("our stale entry", c -> "False".equals(c.getStatus()));
        assertTrue(verify(left).isValid());
        assertEquals(2, api.conditions(NODE).size());
    }

    @Test
    void recoversAfterTheApiServerWasDownAndPublishesTheCurrentState() throws Exception {
        runtime = await(AgentRuntime.start(vertx, nodeApi(), settings(Duration.ofMinutes(5)),
                signingKey, FINGERPRINT_KEY, clock, RetryPolicy.doubling(Duration.ofMillis(200), Duration.ofSeconds(2)).withJitter(0.5, Math::random))
                .toCompletionStage().toCompletableFuture());
        awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        api.stop();
        files.rotate("token-v2");
        Poll.until(WAIT, "a failed publish while the API is down",
                () -> runtime.metrics().registry().scrape().contains("crifresh_publishes_total{result=\"error\"} 1.0"));
        // A publish may fail before the rotation is evaluated (a confirming read of the fresh write, say):
        // wait for the evaluation itself, which goes on while the API is down.
        Poll.until(WAIT, "the rotation evaluated while the API is down (still evaluating)",
                () -> runtime.metrics().registry().scrape().contains("crifresh_node_fresh 0.0"));
        api.restart();
        NodeCondition after = awaitOurs("the current (stale) state after recovery", c -> "False".equals(c.getStatus()));
        assertTrue(verify(after).isValid());
        assertTrue(runtime.metrics().registry().scrape().contains("crifresh_api_errors_total{operation=\"get\"}"));
    }

    @Test
    void aConcurrentStatusWriteMakesTheGuardedPatchFailAndThePublisherRereadsAndRetries() throws Exception {
        NodeApi real = nodeApi();
        AtomicInteger patches = new AtomicInteger();
        NodeApi racing = new NodeApi() {
            @Override
            public Node get(String name) throws ApiException {
                return real.get(name);
            }

            @Override
            public void patchStatus(String name, String jsonPatch) throws ApiException {
                if (patches.incrementAndGet() == 1) {
                    // kubelet writes its status between our read and our patch
                    Node n = api.client().nodes().withName(name).get();
                    n.getStatus().getConditions().add(0, new NodeConditionBuilder().withType("MemoryPressure")
                            .withStatus("False").withReason("KubeletHasSufficientMemory").build());
                    api.client().nodes().resource(n).updateStatus();
                }
                real.patchStatus(name, jsonPatch);
            }

            @Override
            public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
                return real.watch(name, onNode, onError);
            }
        };
        runtime = await(AgentRuntime.start(vertx, racing, settings(Duration.ofMinutes(5)), signingKey,
                FINGERPRINT_KEY, clock, NodeApi.RETRY).toCompletionStage().toCompletableFuture());
        NodeCondition c = awaitOurs("published despite the race", x -> true);
        assertTrue(verify(c).isValid());
        assertEquals(2, patches.get(), "one rejected patch, one retry");
        List<NodeCondition> all = api.conditions(NODE);
        assertEquals(List.of("MemoryPressure", "Ready", ConditionContract.CONDITION_TYPE),
                all.stream().map(NodeCondition::getType).toList());
        String metrics = runtime.metrics().registry().scrape();
        assertTrue(metrics.contains("crifresh_publishes_total{result=\"conflict\"} 1.0"), metrics);
        assertTrue(metrics.contains("crifresh_publishes_total{result=\"success\"} 1.0"), metrics);
    }

    @Test
    void stopLeavesTheConditionInPlaceAndWritesNothingMore() throws Exception {
        startAgent(settings(Duration.ofMillis(600)));
        NodeCondition c = awaitOurs("first publish", x -> true);
        await(runtime.stop().toCompletionStage().toCompletableFuture());
        runtime = null;
        NodeCondition afterStop = ours();
        assertNotNull(afterStop);
        assertEquals(c.getStatus(), afterStop.getStatus());
        String version = api.client().nodes().withName(NODE).get().getMetadata().getResourceVersion();
        // Heartbeats every 600 ms would change iat (whole seconds) within 1.5 s: none may come after stop.
        Instant until = Instant.now().plusMillis(1500);
        Poll.until(WAIT, "time to pass", () -> Instant.now().isAfter(until));
        assertEquals(afterStop, ours());
        assertEquals(version, api.client().nodes().withName(NODE).get().getMetadata().getResourceVersion());
    }

    @Test
    void noContainerdIsPublishedAsASignedUnknown() throws Exception {
        proc.remove(100);
        startAgent(settings(Duration.ofMinutes(5)));
        NodeCondition c = awaitOurs("first publish", x -> true);
        assertEquals("Unknown", c.getStatus());
        assertEquals("ContainerdNotFound", c.getReason());
        assertTrue(verify(c).isValid());
        AttestationClaims claims = ((VerificationResult.Valid) verify(c)).claims();
        assertEquals(Verdict.UNKNOWN, claims.verdict());
        assertEquals(null, claims.containerd());
    }

    @Test
    void anUnreadableBootIdReplacesTheFreshConditionWithAnUnsignedUnknown() throws Exception {
        startAgent(settings(Duration.ofMillis(600)));
        awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        proc.withoutBootId();
        NodeCondition c = awaitOurs("unknown after the boot id became unreadable", x -> "Unknown".equals(x.getStatus()));
        assertEquals("HostUnreadable", c.getReason());
        assertTrue(AttestationMessage.token(c.getMessage()).isEmpty(), "no attestation: " + c.getMessage());
        assertTrue(c.getMessage().contains("boot id"), c.getMessage());
        assertInstanceOf(VerificationResult.Invalid.class, verify(c));
        assertEquals(List.of("Ready", ConditionContract.CONDITION_TYPE),
                api.conditions(NODE).stream().map(NodeCondition::getType).toList());
        String metrics = runtime.metrics().registry().scrape();
        assertTrue(metrics.contains("crifresh_node_fresh -1.0"), metrics);
        // The runtime drops what it serves once the publisher's write is answered, which can be after the API shows it.
        Poll.until(Duration.ofSeconds(10), "no attestation to serve", () -> runtime.published().isEmpty());
        assertTrue(runtime.ready());

        proc.bootId(BOOT_ID);
        NodeCondition back = awaitOurs("fresh again once the boot id is readable", x -> "True".equals(x.getStatus()));
        assertTrue(verify(back).isValid());
    }

    @Test
    void aSecondMatchingContainerdMakesTheNodeUnknownAtTheNextPoll() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        proc.process(300, FakeContainerd.TALOS_CRI, clock.ticksAt(Instant.now()));
        NodeCondition c = awaitOurs("ambiguous at the next poll, long before the heartbeat",
                x -> "Unknown".equals(x.getStatus()));
        assertEquals("ContainerdAmbiguous", c.getReason());
        assertTrue(verify(c).isValid());
    }

    @Test
    void aMatchingProcessWhoseStatCannotBeParsedMakesTheNodeAmbiguousNotFresh() throws Exception {
        startAgent(settings(Duration.ofMinutes(5)));
        awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        proc.process(300, FakeContainerd.TALOS_CRI, 0).garbleStat(300);
        NodeCondition c = awaitOurs("ambiguous because of process 300",
                x -> "Unknown".equals(x.getStatus()) && x.getMessage().contains("process 300"));
        assertEquals("ContainerdAmbiguous", c.getReason());
        assertTrue(c.getMessage().contains("process 300"), c.getMessage());
        assertTrue(verify(c).isValid());
    }
}
