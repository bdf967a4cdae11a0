package dev.crifresh.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.kube.Fabric8NodeApi;
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
import dev.crifresh.common.attest.VerificationFailure;
import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.mockapi.reliability.FaultRow;
import dev.crifresh.mockapi.reliability.FaultTable;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's fault-injection suite (docs/reliability.md): the real agent runtime against fabric8's mock
 * API server (CRUD mode, real HTTP and watches, a server that can be stopped and restarted with its
 * objects), real config files with real mtimes, a fake {@code /proc}. Each case injects one fault and
 * asserts on the condition in the API and its signed attestation — never on log text. Time is scaled
 * (validity seconds, not minutes) so that expiry fits in CI.
 */
class AgentFaultSuiteTest {
    interface Body {
        String run(Agent a) throws Exception;
    }

    record Case(String id, String fault, String point, Body body) {
        @Override
        public String toString() {
            return id + " " + fault + " @ " + point;
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String NODE = "worker-1";
    private static final String BOOT_ID = "0b9d7f8e-1111-4222-8333-444455556666";
    private static final byte[] FINGERPRINT_KEY = "fingerprint-key-of-32-bytes-xxxx".getBytes();
    private static final FaultTable TABLE = new FaultTable("agent", (int) allCases().count());

    static Stream<Case> cases() {
        return FaultTable.selected(allCases(), Case::id);
    }

    static Stream<Case> allCases() {
        return Stream.of(
                new Case("G1", "API server down longer than the attestation's validity (scaled: validity 4 s instead of 15 min, heartbeat 1 s)",
                        "after the first publish", AgentFaultSuiteTest::outageLongerThanValidity),
                new Case("G2", "the Node watch dropped by the server (connections cut), then the condition removed",
                        "while idle (heartbeat 5 min)", AgentFaultSuiteTest::watchDropped),
                new Case("G3", "the condition deleted by another writer", "while idle (heartbeat 5 min)",
                        AgentFaultSuiteTest::conditionDeleted),
                new Case("G4", "the condition overwritten by another writer with a replay of the agent's own earlier fresh attestation",
                        "after the node turned stale", AgentFaultSuiteTest::replayedFreshCondition),
                new Case("G5", "a burst of ~3000 file events in the watched directory around a credential change (enough to overflow a watch key's 512-event queue when the watcher falls behind)",
                        "while fresh", AgentFaultSuiteTest::eventBurst),
                new Case("G6", "the signing key file replaced (rotation: the new public key added to the trust bundle first)",
                        "while running, then the documented agent restart", AgentFaultSuiteTest::signingKeyRotated));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void fault(Case c, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (Agent a = new Agent(dir)) {
            String result;
            try {
                result = c.body().run(a);
            } catch (Throwable t) {
                TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), "FAILED: " + t.getMessage(), false));
                throw t;
            }
            TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), result, true));
        }
    }

    @AfterAll
    static void writeTable() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        TABLE.finish(module, module.resolve("../docs/reliability.md").normalize());
    }

    /** One node: the mock API, its host files and /proc, the agent's keys, and the running agent. */
    static final class Agent implements AutoCloseable {
        final Vertx vertx = Vertx.vertx();
        final MockApi api = new MockApi(vertx);
        final TestClock clock = new TestClock(Instant.now().minusSeconds(1000));
        final FakeProc proc;
        final TalosFiles files;
        final KeyPair keys = Ed25519Keys.generate();
        SigningKey signingKey;
        final String nodeUid;
        AgentRuntime runtime;

        Agent(Path dir) throws Exception {
            nodeUid = api.createNode(NODE, BOOT_ID).getMetadata().getUid();
            Instant containerdStart = clock.boot().plusSeconds(500);
            proc = new FakeProc(dir.resolve("proc")).bootId(BOOT_ID).uptime(Duration.ofSeconds(1000))
                    .process(100, FakeContainerd.TALOS_CRI, clock.ticksAt(containerdStart));
            files = new TalosFiles(dir.resolve("host")).writeAll("token-v1", containerdStart.minusSeconds(100));
            signingKey = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(keys));
        }

        /** Stops the agent, as a pod restart does. */
        void stop() throws Exception {
            runtime.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            runtime = null;
        }

        /** Starts the agent; publish retries back off from 200 ms up to 1 s. */
        void start(Duration heartbeat, Duration validity) throws Exception {
            AgentSettings settings = AgentSettings.defaults(NODE).withRoots(proc.root(), files.hostRoot()).withMetricsPort(0)
                    .withTiming(heartbeat, validity, Duration.ofMillis(200), Duration.ofMillis(20));
            runtime = AgentRuntime.start(vertx, new Fabric8NodeApi(api.client()), settings, signingKey, FINGERPRINT_KEY,
                    clock, RetryPolicy.doubling(Duration.ofMillis(200), Duration.ofSeconds(1)).withJitter(0.5, Math::random))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }

        NodeCondition ours() {
            return api.conditions(NODE).stream().filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType()))
                    .findFirst().orElse(null);
        }

        NodeCondition awaitOurs(String what, java.util.function.Predicate<NodeCondition> ok) {
            return Poll.until(WAIT, what, this::ours, c -> c != null && ok.test(c));
        }

        /** The coordinator's verdict on the condition at {@code now}, with no clock skew allowed. */
        VerificationResult verify(NodeCondition c, Instant now) throws Exception {
            return verify(c, now, List.of(keys.getPublic(), signingKey.publicKey()));
        }

        VerificationResult verify(NodeCondition c, Instant now, List<java.security.PublicKey> trusted) throws Exception {
            TrustBundle trust = TrustBundle.of(trusted, FINGERPRINT_KEY);
            String token = c == null ? null : AttestationMessage.token(c.getMessage()).orElse(null);
            return new AttestationVerifier(trust, Duration.ZERO)
                    .verify(token, new ExpectedNode(NODE, nodeUid, BOOT_ID, c == null ? null : c.getStatus()), now);
        }

        /** The signed claims, read without the verifier's time checks (a short validity may be over by now). */
        AttestationClaims signedClaims(NodeCondition c) {
            String token = AttestationMessage.token(c.getMessage()).orElseThrow();
            return dev.crifresh.common.attest.ClaimsJson.read(new String(dev.crifresh.common.attest.Jws.parse(token).payload(),
                    java.nio.charset.StandardCharsets.UTF_8));
        }

        AttestationClaims claims(NodeCondition c) throws Exception {
            VerificationResult r = verify(c, Instant.now());
            return assertInstanceOf(VerificationResult.Valid.class, r, r.toString()).claims();
        }

        int conditionIndex() {
            List<NodeCondition> all = api.conditions(NODE);
            for (int i = 0; i < all.size(); i++) {
                if (ConditionContract.CONDITION_TYPE.equals(all.get(i).getType())) {
                    return i;
                }
            }
            throw new AssertionError("no condition of our type");
        }

        @Override
        public void close() throws ExecutionException, TimeoutException {
            if (runtime != null) {
                try {
                    runtime.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the agent stopped", e);
                }
            }
            api.close();
            vertx.close();
        }
    }

    // ---- cases ---------------------------------------------------------------------------------------

    private static String outageLongerThanValidity(Agent a) throws Exception {
        a.start(Duration.ofSeconds(1), Duration.ofSeconds(4));
        NodeCondition before = a.awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        AttestationClaims old = a.signedClaims(before);
        a.api.stop();
        Instant down = Instant.now();
        Poll.until(WAIT, "the last attestation to expire during the outage", () -> Instant.now().isAfter(old.exp().plusSeconds(1)));
        VerificationResult stored = a.verify(before, Instant.now());
        assertEquals(VerificationFailure.EXPIRED, assertInstanceOf(VerificationResult.Invalid.class, stored).failure(),
                "the condition left in the API during the outage");
        Duration outage = Duration.between(down, Instant.now());
        a.api.restart();
        NodeCondition after = a.awaitOurs("a valid attestation after the API returned",
                c -> { try { return a.verify(c, Instant.now()).isValid(); } catch (Exception e) { return false; } });
        AttestationClaims fresh = a.signedClaims(after);
        assertEquals(Verdict.FRESH, fresh.verdict());
        assertTrue(fresh.iat().isAfter(old.iat()), "not republished");
        assertTrue(outage.compareTo(Duration.ofSeconds(1)) > 0, "outage " + outage);
        return "the condition in the API expired during the outage (the coordinator would treat the node as unknown);"
                + " after the API returned the agent republished a valid fresh attestation from a new evaluation";
    }

    private static String watchDropped(Agent a) throws Exception {
        a.start(Duration.ofMinutes(5), Duration.ofMinutes(15));
        a.awaitOurs("first publish", c -> true);
        a.api.stop();
        a.api.restart();
        // Only a re-established watch can tell the agent now: its heartbeat is minutes away.
        Poll.until(WAIT, "the condition removed after the agent's watch came back", () -> {
            removeOurs(a);
            pause(300);
            return a.ours() != null;
        });
        NodeCondition restored = a.ours();
        assertTrue(a.verify(restored, Instant.now()).isValid());
        return "the agent re-established its watch and restored its signed condition (no heartbeat involved)";
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeOurs(Agent a) {
        try {
            int index = a.conditionIndex();
            a.api.client().nodes().withName(NODE).subresource("status").patch(PatchContext.of(PatchType.JSON),
                    "[{\"op\":\"test\",\"path\":\"/status/conditions/" + index + "/type\",\"value\":\""
                            + ConditionContract.CONDITION_TYPE + "\"},{\"op\":\"remove\",\"path\":\"/status/conditions/" + index + "\"}]");
        } catch (AssertionError | RuntimeException e) {
            // not there (yet) or moved: the next poll tries again
        }
    }

    private static String conditionDeleted(Agent a) throws Exception {
        a.start(Duration.ofMinutes(5), Duration.ofMinutes(15));
        a.awaitOurs("first publish", c -> true);
        removeOurs(a);
        NodeCondition restored = a.awaitOurs("the condition restored", c -> true);
        assertTrue(a.verify(restored, Instant.now()).isValid());
        assertEquals(2, a.api.conditions(NODE).size(), "kubelet's Ready and ours");
        return "restored within seconds, validly signed; kubelet's Ready untouched";
    }

    private static String replayedFreshCondition(Agent a) throws Exception {
        a.start(Duration.ofMinutes(5), Duration.ofMinutes(15));
        NodeCondition fresh = a.awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        a.files.rotate("token-v2");
        a.awaitOurs("stale", c -> "False".equals(c.getStatus()));
        Node n = a.api.client().nodes().withName(NODE).get();
        n.getStatus().getConditions().set(a.conditionIndex(), fresh);
        a.api.client().nodes().resource(n).updateStatus();
        NodeCondition replaced = a.awaitOurs("the replay replaced", c -> "False".equals(c.getStatus()));
        assertEquals(Verdict.STALE, a.claims(replaced).verdict());
        // The replayed token itself is still a valid signature: only the agent's rewrite undoes it.
        assertTrue(a.verify(fresh, Instant.now()).isValid());
        return "the agent rewrote its current stale attestation over the replayed fresh one";
    }

    private static String eventBurst(Agent a) throws Exception {
        a.start(Duration.ofMinutes(5), Duration.ofMinutes(15));
        a.awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        List<String> seen = new CopyOnWriteArrayList<>();
        Path confD = a.files.onHost("/etc/cri/conf.d");
        for (int i = 0; i < 1000; i++) {
            Path junk = confD.resolve("junk-" + i + ".tmp");
            Files.writeString(junk, "x");
            Files.delete(junk);
            if (i == 500) {
                a.files.rotate("token-v2");
            }
        }
        NodeCondition stale = a.awaitOurs("stale", c -> "False".equals(c.getStatus()));
        for (int i = 0; i < 10; i++) {
            NodeCondition now = a.ours();
            seen.add(now.getStatus());
            Thread.sleep(100);
        }
        assertEquals(Verdict.STALE, a.claims(stale).verdict());
        assertTrue(seen.stream().allMatch("False"::equals), "not stale after the burst: " + seen);
        return "stale (ConfigChangedAfterContainerdStart) from a full re-read; never fresh afterwards";
    }

    private static String signingKeyRotated(Agent a) throws Exception {
        Path keyFile = a.files.hostRoot().resolveSibling("signing.key");
        Files.writeString(keyFile, Ed25519Keys.signingKeyPem(a.keys));
        a.signingKey = Ed25519Keys.readSigningKeyPem(Files.readString(keyFile));
        a.start(Duration.ofMillis(500), Duration.ofMinutes(15));
        NodeCondition first = a.awaitOurs("fresh", c -> "True".equals(c.getStatus()));
        String oldKid = a.signingKey.kid();
        KeyPair next = Ed25519Keys.generate();
        Files.writeString(keyFile, Ed25519Keys.signingKeyPem(next)); // the Secret updated in place
        Poll.until(WAIT, "two heartbeats after the replacement", () -> {
            NodeCondition c = a.ours();
            return c != null && !c.getLastHeartbeatTime().equals(first.getLastHeartbeatTime());
        });
        assertEquals(oldKid, kid(a.ours()), "a running agent keeps the key it loaded");
        assertTrue(a.verify(a.ours(), Instant.now(), List.of(a.keys.getPublic())).isValid());
        a.stop();
        a.signingKey = Ed25519Keys.readSigningKeyPem(Files.readString(keyFile)); // what RunCommand reads at start
        a.start(Duration.ofMinutes(5), Duration.ofMinutes(15));
        String newKid = a.signingKey.kid();
        NodeCondition resigned = a.awaitOurs("re-signed with the new key", c -> newKid.equals(kid(c)));
        List<java.security.PublicKey> newOnly = List.of(next.getPublic());
        assertTrue(a.verify(resigned, Instant.now(), newOnly).isValid(), "not valid once the old key is removed");
        VerificationResult oldAfterRemoval = a.verify(first, Instant.now(), newOnly);
        assertEquals(VerificationFailure.UNTRUSTED_KEY,
                assertInstanceOf(VerificationResult.Invalid.class, oldAfterRemoval).failure());
        return "a running agent keeps signing with the key it loaded (heartbeats still verify with the old key); after the"
                + " documented restart its first publish carries the new kid and verifies with the new key alone; an"
                + " attestation under the removed old key is untrusted (unknown → reboot)";
    }

    private static String kid(NodeCondition c) {
        String token = AttestationMessage.token(c.getMessage()).orElseThrow();
        String header = new String(java.util.Base64.getUrlDecoder().decode(token.substring(0, token.indexOf('.'))),
                java.nio.charset.StandardCharsets.UTF_8);
        int at = header.indexOf("\"kid\":\"") + 7;
        return header.substring(at, header.indexOf('"', at));
    }
}
