package dev.crifresh.agent.expire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.VertxNodeApi;
import dev.crifresh.agent.publish.ConditionPatch;
import dev.crifresh.agent.testing.InCluster;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ExpiryController} on the real in-cluster client ({@link VertxNodeApi}, HTTPS, bearer token) against
 * the mock API server in CRUD mode, with a clock the test moves: rounds run when the test asks, never on a timer.
 */
class ExpiryControllerTest {
    private static final String NAMESPACE = "crifresh";
    private static final String LEASE = "crifresh-agent-expiry";

    @TempDir
    Path dir;
    private Vertx vertx;
    private MockApi api;
    private InCluster cluster;
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-03-01T12:00:00.250Z"));
    private VertxNodeApi clientA;
    private VertxNodeApi clientB;

    @BeforeEach
    void setUp() throws Exception {
        vertx = Vertx.vertx();
        api = new MockApi(vertx);
        api.createNode("worker-1", "boot-1");
        api.createNode("worker-2", "boot-2");
        cluster = new InCluster(vertx, api, dir, "token-1");
        clientA = new VertxNodeApi(vertx, cluster.config());
        clientB = new VertxNodeApi(vertx, cluster.config());
    }

    @AfterEach
    void tearDown() throws Exception {
        clientA.close();
        clientB.close();
        cluster.close();
        api.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    private ExpiryController candidate(String identity, VertxNodeApi client) {
        // a period the test never waits for: every round is one the test runs
        return new ExpiryController(vertx, vertx.getOrCreateContext(), client,
                new ExpirySettings(NAMESPACE, LEASE, identity, Duration.ofSeconds(20), Duration.ofSeconds(40)), now::get);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private void publish(String node, NodeCondition condition) {
        Node n = api.client().nodes().withName(node).get();
        n.getStatus().getConditions().removeIf(c -> c.getType().equals(condition.getType()));
        n.getStatus().getConditions().add(condition);
        api.client().nodes().resource(n).updateStatus();
    }

    private NodeCondition ours(String node) {
        return ConditionPatch.ours(api.client().nodes().withName(node).get());
    }

    private Lease lease() {
        return api.client().resources(Lease.class).inNamespace(NAMESPACE).withName(LEASE).get();
    }

    @Test
    void theLeaseHolderMarksAnExpiredConditionUnknownAndLeavesALiveOne() throws Exception {
        NodeCondition live = Tokens.attested("worker-1", Verdict.FRESH, now.get().minusSeconds(60), now.get().plusSeconds(840));
        NodeCondition expired = Tokens.attested("worker-2", Verdict.FRESH, now.get().minusSeconds(900), now.get().minusSeconds(1));
        publish("worker-1", live);
        publish("worker-2", expired);
        ExpiryController a = candidate("agent-a", clientA);

        ExpiryRound round = await(a.round());

        assertEquals(new ExpiryRound(true, "agent-a", 2, List.of("worker-2")), round);
        NodeCondition after = ours("worker-2");
        assertEquals("Unknown", after.getStatus());
        assertEquals("AttestationExpired", after.getReason());
        assertEquals(AttestationMessage.token(expired.getMessage()), AttestationMessage.token(after.getMessage()));
        assertEquals(expired.getLastHeartbeatTime(), after.getLastHeartbeatTime(), "the agent's last heartbeat stays");
        assertEquals(now.get().truncatedTo(ChronoUnit.SECONDS).toString(), after.getLastTransitionTime());
        assertEquals(2, api.conditions("worker-2").size(), "kubelet's Ready stays");
        assertEquals(MockApi.kubeletReady(), api.conditions("worker-2").get(0));
        assertEquals(live, ours("worker-1"));
        Lease lease = lease();
        assertEquals("agent-a", lease.getSpec().getHolderIdentity());
        assertEquals(40, lease.getSpec().getLeaseDurationSeconds());

        assertEquals(new ExpiryRound(true, "agent-a", 2, List.of()), await(a.round()),
                "an Unknown condition is left as it is");
    }

    @Test
    void aSecondCandidateFollowsTheLiveHolderAndTakesOverOnceTheHolderStopsRenewing() throws Exception {
        publish("worker-2", Tokens.attested("worker-2", Verdict.FRESH, now.get().minusSeconds(60), now.get().plusSeconds(30)));
        ExpiryController a = candidate("agent-a", clientA);
        ExpiryController b = candidate("agent-b", clientB);
        assertTrue(await(a.round()).leader());
        assertEquals(ExpiryRound.follower("agent-a"), await(b.round()));

        now.set(now.get().plusSeconds(39));
        assertEquals(ExpiryRound.follower("agent-a"), await(b.round()), "the Lease still holds for a second");
        now.set(now.get().plusSeconds(1)); // agent-a (hung) did not renew for the lease duration
        ExpiryRound takeover = await(b.round());
        assertEquals(new ExpiryRound(true, "agent-b", 2, List.of("worker-2")), takeover,
                "the new holder marks what expired meanwhile");
        assertEquals("agent-b", lease().getSpec().getHolderIdentity());
        assertEquals(1, lease().getSpec().getLeaseTransitions());
        assertEquals(ExpiryRound.follower("agent-b"), await(a.round()), "the old holder, back, follows");
    }

    @Test
    void candidatesRacingForANewLeaseElectOne() throws Exception {
        ExpiryController a = candidate("agent-a", clientA);
        ExpiryController b = candidate("agent-b", clientB);
        Future<ExpiryRound> ra = a.round();
        Future<ExpiryRound> rb = b.round();
        int leaders = (await(ra).leader() ? 1 : 0) + (await(rb).leader() ? 1 : 0);
        assertEquals(1, leaders);
    }

    @Test
    void aConditionTheAgentRewroteAfterTheLeaderReadItIsNotDowngraded() throws Exception {
        publish("worker-2", Tokens.attested("worker-2", Verdict.FRESH, now.get().minusSeconds(900), now.get().minusSeconds(1)));
        Node read = clientA.get("worker-2");
        Judgement.Downgrade downgrade = assertInstanceOf(Judgement.Downgrade.class,
                ExpiryRule.judge(read, now.get(), "agent-a"));
        NodeCondition renewed = Tokens.attested("worker-2", Verdict.FRESH, now.get(), now.get().plusSeconds(900));
        publish("worker-2", renewed); // the agent came back and published before the patch arrived

        ApiException e = assertThrows(ApiException.class,
                () -> clientA.patchStatus("worker-2", ExpiryPatch.build(read, downgrade, now.get())));
        assertEquals(422, e.code());
        assertEquals(renewed, ours("worker-2"));
    }

    @Test
    void aStoppedCandidateRunsNoMoreRounds() throws Exception {
        ExpiryController a = candidate("agent-a", clientA);
        await(a.stop());
        Exception e = assertThrows(Exception.class, () -> await(a.round()));
        assertTrue(e.getMessage().contains("stopped"), e.getMessage());
        assertFalse(api.requests().stream().anyMatch(r -> r.path().contains("/leases")), "no Lease was ever asked for");
    }
}
