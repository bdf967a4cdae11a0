package dev.crifresh.agent.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.publish.ConditionPatch;
import dev.crifresh.agent.publish.DesiredCondition;
import dev.crifresh.agent.testing.InCluster;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.agent.testing.RestartableDispatcher.Seen;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link VertxNodeApi} against fabric8's mock API server in CRUD mode behind a real TLS front: real
 * HTTPS verified against the service account's CA, real WebSocket watches, a server that authenticates
 * bearer tokens, and a token file rotated as the kubelet rotates it.
 */
class VertxNodeApiTest {
    private static final String NODE = "worker-1";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private Vertx vertx;
    private MockApi api;
    private InCluster cluster;
    private VertxNodeApi client;
    private AutoCloseable watch;
    private final AtomicLong nanos = new AtomicLong();

    @BeforeEach
    void setUp() throws Exception {
        vertx = Vertx.vertx();
        api = new MockApi(vertx);
        api.createNode(NODE, "boot-1");
        cluster = new InCluster(vertx, api, dir, "token-1");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (watch != null) {
            watch.close();
        }
        if (client != null) {
            client.close();
        }
        cluster.close();
        api.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    /** A client whose token copy only goes stale when the test moves {@link #nanos} (an hour by default). */
    private VertxNodeApi client() {
        client = new VertxNodeApi(vertx, cluster.config(),
                new ServiceAccountToken(cluster.config().tokenFile(), Duration.ofHours(1), nanos::get),
                RetryPolicy.doubling(Duration.ofMillis(100), Duration.ofMillis(500)).withJitter(0.5, () -> 0.5));
        return client;
    }

    /** The agent's requests (not the test's own admin client's). */
    private List<Seen> requestsWith(String method, String pathPrefix) {
        return api.requests().stream().filter(r -> !MockApi.ADMIN_TOKEN.equals(r.token()))
                .filter(r -> r.method().equals(method) && r.path().startsWith(pathPrefix)).toList();
    }

    private static NodeCondition condition(String type, String status) {
        return new NodeConditionBuilder().withType(type).withStatus(status).withReason("Test").withMessage("m")
                .withLastHeartbeatTime("2025-03-01T10:00:00Z").withLastTransitionTime("2025-03-01T10:00:00Z").build();
    }

    /** Another writer (kubelet, a test) adds a condition through the admin client. */
    private void addConditionAsAdmin(NodeCondition c) {
        Node n = api.client().nodes().withName(NODE).get();
        n.getStatus().getConditions().add(c);
        api.client().nodes().resource(n).updateStatus();
    }

    @Test
    void getReadsTheNodesIdentityAndConditionsWithTheServiceAccountToken() throws Exception {
        Node expected = api.client().nodes().withName(NODE).get();
        Node node = client().get(NODE);
        assertEquals(expected.getMetadata().getUid(), node.getMetadata().getUid());
        assertEquals(expected.getMetadata().getResourceVersion(), node.getMetadata().getResourceVersion());
        assertEquals(List.of(MockApi.kubeletReady()), node.getStatus().getConditions());
        assertEquals(List.of(new Seen("GET", "/api/v1/nodes/" + NODE, "token-1")), requestsWith("GET", "/api/v1/nodes/"));
        assertNull(client.get("no-such-node"), "a missing Node is null, not an error");
    }

    @Test
    void patchWritesTheGuardedJsonPatchAndARejectedGuardIsAnUnprocessable422() throws Exception {
        Node node = client().get(NODE);
        DesiredCondition desired = ConditionPatch.desired(node, "True", "Fresh", "ok", Instant.parse("2025-03-01T11:00:00Z"));
        client.patchStatus(NODE, ConditionPatch.build(node, desired));
        NodeCondition written = ConditionPatch.ours(api.client().nodes().withName(NODE).get());
        assertEquals("Fresh", written.getReason());
        assertEquals(2, api.conditions(NODE).size(), "kubelet's Ready stays");
        // the same patch again: its resourceVersion guard no longer holds
        ApiException e = assertThrows(ApiException.class,
                () -> client.patchStatus(NODE, ConditionPatch.build(node, desired)));
        assertEquals(422, e.code());
        assertTrue(e.rejected());
    }

    @Test
    void aRotatedTokenIsReadAgainAfterA401AndTheRequestIsSentOnceMore() throws Exception {
        client().get(NODE);
        cluster.rotateToken("token-2"); // the server no longer takes token-1; the client still holds it
        Node node = client.get(NODE);
        assertNotNull(node);
        List<Seen> gets = requestsWith("GET", "/api/v1/nodes/" + NODE);
        assertEquals(List.of("token-1", "token-1", "token-2"), gets.stream().map(Seen::token).toList(),
                "one 401 with the old token, then the new one");
        DesiredCondition desired = ConditionPatch.desired(node, "True", "Fresh", "ok", Instant.now());
        cluster.rotateToken("token-3");
        client.patchStatus(NODE, ConditionPatch.build(node, desired)); // a rejected PATCH was not applied: retrying is safe
        assertEquals(List.of("token-2", "token-3"),
                requestsWith("PATCH", "/api/v1/nodes/").stream().map(Seen::token).toList());
        assertEquals("Fresh", ConditionPatch.ours(api.client().nodes().withName(NODE).get()).getReason());
    }

    @Test
    void theTokenIsReadAgainOnceItsCopyIsOlderThanTheMaxAgeWithoutWaitingForA401() throws Exception {
        client().get(NODE);
        api.acceptOnly(Set.of("token-1", "token-2")); // both valid, as during a real rotation
        cluster.writeToken("token-2");
        client.get(NODE);
        nanos.addAndGet(Duration.ofHours(1).toNanos());
        client.get(NODE);
        assertEquals(List.of("token-1", "token-1", "token-2"),
                requestsWith("GET", "/api/v1/nodes/" + NODE).stream().map(Seen::token).toList());
    }

    @Test
    void aTokenTheServerStillRejectsAfterRereadingIsA401NotALoop() throws Exception {
        client().get(NODE);
        api.acceptOnly(Set.of("token-other"));
        ApiException e = assertThrows(ApiException.class, () -> client.get(NODE));
        assertEquals(401, e.code());
        assertFalse(e.getMessage().contains("token-1"), "never a token in a message: " + e.getMessage());
        assertEquals(3, requestsWith("GET", "/api/v1/nodes/" + NODE).size(), "one retry, not more");
    }

    @Test
    void anUnreadableTokenFileFailsTheCallAndNamesTheFileNotTheToken() throws Exception {
        VertxNodeApi c = client();
        Path tokenFile = cluster.config().tokenFile();
        Files.delete(tokenFile);
        ApiException e = assertThrows(ApiException.class, () -> c.get(NODE));
        assertEquals(0, e.code());
        assertTrue(e.getMessage().contains(tokenFile.toString()), e.getMessage());
        assertTrue(requestsWith("GET", "/api/v1/nodes/").isEmpty(), "nothing was sent without a token");
    }

    @Test
    void aServerWhoseCertificateTheServiceAccountCaDoesNotSignIsRefused() throws Exception {
        SelfSignedCertificate other = SelfSignedCertificate.create("localhost");
        try {
            Files.copy(Path.of(other.certificatePath()), cluster.config().caFile(), StandardCopyOption.REPLACE_EXISTING);
            ApiException e = assertThrows(ApiException.class, () -> client().get(NODE));
            assertEquals(0, e.code(), "no answer over an unverified connection: " + e.getMessage());
            assertTrue(requestsWith("GET", "/api/v1/nodes/").isEmpty(), "the request never reached the server");
        } finally {
            other.delete();
        }
    }

    @Test
    void watchDeliversTheListedNodeThenEveryChange() throws Exception {
        List<Node> seen = new CopyOnWriteArrayList<>();
        watch = client().watch(NODE, seen::add, t -> { });
        Poll.until(WAIT, "the listed Node", () -> !seen.isEmpty());
        assertEquals(api.client().nodes().withName(NODE).get().getMetadata().getUid(), seen.get(0).getMetadata().getUid());
        addConditionAsAdmin(condition("Other", "True"));
        Poll.until(WAIT, "the change through the watch", () -> seen.stream()
                .anyMatch(n -> ConditionPatch.find(n, "Other") != null));
        assertTrue(api.requests().stream().anyMatch(r -> r.path().contains("watch=true")
                && r.path().contains("fieldSelector=metadata.name%3D" + NODE) && "token-1".equals(r.token())),
                "a watch by field selector with the service account's token: " + api.requests());
    }

    @Test
    void watchContinuesAfterTheConnectionIsCut() throws Exception {
        List<Node> seen = new CopyOnWriteArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        watch = client().watch(NODE, seen::add, errors::add);
        Poll.until(WAIT, "the listed Node", () -> !seen.isEmpty());
        awaitWatchLive(seen, "BeforeCut");
        cluster.front().dropConnections();
        addConditionAsAdmin(condition("AfterCut", "True"));
        Poll.until(WAIT, "the change made after the cut", () -> seen.stream()
                .anyMatch(n -> ConditionPatch.find(n, "AfterCut") != null));
    }

    @Test
    void watchReconnectsWithTheRotatedTokenAfterTheOldOneIsRejected() throws Exception {
        List<Node> seen = new CopyOnWriteArrayList<>();
        watch = client().watch(NODE, seen::add, t -> { });
        Poll.until(WAIT, "the listed Node", () -> !seen.isEmpty());
        awaitWatchLive(seen, "BeforeRotation");
        cluster.rotateToken("token-2");
        cluster.front().dropConnections();
        addConditionAsAdmin(condition("AfterRotation", "True"));
        Poll.until(WAIT, "the change made after the rotation", () -> seen.stream()
                .anyMatch(n -> ConditionPatch.find(n, "AfterRotation") != null));
        Poll.until(WAIT, "the watch opened again with the new token", () -> api.requests().stream()
                .anyMatch(r -> "token-2".equals(r.token()) && r.path().contains("watch=true")));
    }

    @Test
    void aClosedWatchDeliversNothingMore() throws Exception {
        List<Node> seen = new CopyOnWriteArrayList<>();
        AutoCloseable w = client().watch(NODE, seen::add, t -> { });
        Poll.until(WAIT, "the listed Node", () -> !seen.isEmpty());
        awaitWatchLive(seen, "BeforeClose");
        w.close();
        int before = seen.size();
        addConditionAsAdmin(condition("AfterClose", "True"));
        // A second, live watch sees the change: the server has sent it to every watch still open by then.
        List<Node> witness = new CopyOnWriteArrayList<>();
        watch = client.watch(NODE, witness::add, t -> { });
        Poll.until(WAIT, "the change through a live watch", () -> witness.stream()
                .anyMatch(n -> ConditionPatch.find(n, "AfterClose") != null));
        addConditionAsAdmin(condition("AfterWitness", "True"));
        Poll.until(WAIT, "a later change through the live watch", () -> witness.stream()
                .anyMatch(n -> ConditionPatch.find(n, "AfterWitness") != null));
        assertEquals(before, seen.size(), "the closed watch delivered a change made after close");
    }

    /**
     * Waits until the watch delivers a change made now: the request alone does not say the stream is
     * established, a change delivered through it does.
     */
    private void awaitWatchLive(List<Node> seen, String probe) throws Exception {
        addConditionAsAdmin(condition(probe, "True"));
        Poll.until(WAIT, "the watch live (" + probe + " delivered)", () -> seen.stream()
                .anyMatch(n -> ConditionPatch.find(n, probe) != null));
    }

    @Test
    void blockingCallsRefuseToRunOnAnEventLoop() throws Exception {
        VertxNodeApi c = client();
        var result = new java.util.concurrent.CompletableFuture<Throwable>();
        vertx.runOnContext(v -> {
            try {
                c.get(NODE);
                result.complete(null);
            } catch (Throwable t) {
                result.complete(t);
            }
        });
        Throwable t = result.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalStateException, String.valueOf(t));
    }
}
