package dev.crifresh.coordinator.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.fixture.TestAgent;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The classification matrix (docs/coordinator.md, "Classification") on in-memory Nodes, with real signatures and the real verifier. */
class NodeClassifierTest {
    private static final String MARKER = ConditionContract.DEFAULT_MARKER_ANNOTATION;

    private final TestAgent agent = new TestAgent();
    private final NodeClassifier classifier = new NodeClassifier(new AttestationVerifier(agent.trust, Duration.ofSeconds(60)),
            "ghcr.io", agent.fingerprint(TestAgent.DESIRED), new MarkerRule(MARKER, null));

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withNewNodeInfo().withBootID("boot-" + name).endNodeInfo()
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build();
    }

    private static Node withCondition(Node node, String status, String message) {
        return new NodeBuilder(node).editStatus().addNewCondition().withType(ConditionContract.CONDITION_TYPE)
                .withStatus(status).withReason("Whatever").withMessage(message).endCondition().endStatus().build();
    }

    private Node attested(Node node, Verdict verdict, Reason reason, Map<String, String> registries) {
        String token = agent.sign(TestAgent.claims(node, verdict, reason, registries));
        return withCondition(node, verdict.conditionStatus(), AttestationMessage.format("sentence", token));
    }

    private Classification classify(Node node) {
        return classifier.classify(NodeFacts.of(node), Instant.now());
    }

    @Test
    void freshWithDesiredCredentialIsFresh() {
        Classification c = classify(attested(node("a"), Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent.holds(TestAgent.DESIRED)));
        assertEquals(NodeVerdict.FRESH, c.verdict());
        assertEquals("ContainerdStartedAfterConfig", c.reason());
    }

    @Test
    void staleWithDesiredCredentialIsStale() {
        Classification c = classify(attested(node("a"), Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, agent.holds(TestAgent.DESIRED)));
        assertEquals(NodeVerdict.STALE, c.verdict());
        assertEquals("ConfigChangedAfterContainerdStart", c.reason());
    }

    @Test
    void aFreshThatNamesNoProofIsUnknown() {
        Node n = node("a");
        AttestationClaims claims = TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED)).withVerdict(Verdict.FRESH, "ContainerdStartedAfterConfig", Proof.NONE);
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("sentence", agent.sign(claims))));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals(NodeClassifier.FRESH_WITHOUT_PROOF_REASON, c.reason());
    }

    @Test
    void aFreshProvenInTheClockOfContainerdsSocketIsFresh() {
        Node n = node("a");
        AttestationClaims claims = TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED)).withVerdict(Verdict.FRESH, "ContainerdStartedAfterConfig",
                Proof.SOCKET_ORDERING);
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("sentence", agent.sign(claims))));
        assertEquals(NodeVerdict.FRESH, c.verdict(), c.detail());
        assertTrue(c.detail().contains("socket-ordering"), c.detail());
    }

    @Test
    void aFreshProvenByTheRuntimeStatusIsFresh() {
        Node n = node("a");
        AttestationClaims claims = TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED)).withVerdict(Verdict.FRESH, "RuntimeStatusMatchesConfig", Proof.RUNTIME_STATUS);
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("sentence", agent.sign(claims))));
        assertEquals(NodeVerdict.FRESH, c.verdict(), c.reason());
    }

    @Test
    void aFreshWithoutTheEvidenceItWasDecidedOnIsUnknown() {
        Node n = node("a");
        AttestationClaims full = TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED));
        AttestationClaims noContainerd = new AttestationClaims(full.v(), full.iss(), full.sub(), full.nodeUid(),
                full.bootId(), full.iat(), full.exp(), full.verdict(), full.reason(), full.proof(), null, full.config(),
                full.registries(), full.marginMs(), full.agent());
        AttestationClaims noConfig = new AttestationClaims(full.v(), full.iss(), full.sub(), full.nodeUid(),
                full.bootId(), full.iat(), full.exp(), full.verdict(), full.reason(), full.proof(), full.containerd(),
                null, full.registries(), full.marginMs(), full.agent());
        for (AttestationClaims claims : List.of(noContainerd, noConfig)) {
            Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(claims))));
            assertEquals(NodeVerdict.UNKNOWN, c.verdict());
            assertEquals(NodeClassifier.FRESH_WITHOUT_EVIDENCE_REASON, c.reason());
        }
    }

    @Test
    void aFreshDecidedWithAMarginBelowTheFloorIsUnknown() {
        Node n = node("a");
        AttestationClaims full = TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED));
        for (long margin : new long[] {0, 19}) {
            AttestationClaims thin = new AttestationClaims(full.v(), full.iss(), full.sub(), full.nodeUid(),
                    full.bootId(), full.iat(), full.exp(), full.verdict(), full.reason(), full.proof(),
                    full.containerd(), full.config(), full.registries(), margin, full.agent());
            Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(thin))));
            assertEquals(NodeVerdict.UNKNOWN, c.verdict(), "margin " + margin);
            assertEquals(NodeClassifier.MARGIN_BELOW_FLOOR_REASON, c.reason());
        }
        AttestationClaims atFloor = new AttestationClaims(full.v(), full.iss(), full.sub(), full.nodeUid(),
                full.bootId(), full.iat(), full.exp(), full.verdict(), full.reason(), full.proof(),
                full.containerd(), full.config(), full.registries(), 20, full.agent());
        assertEquals(NodeVerdict.FRESH,
                classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(atFloor)))).verdict());
    }

    @Test
    void aTokenValidForMoreThanAnHourIsUnknown() {
        Node n = node("a");
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        AttestationClaims longLived = TestAgent.claims(n, n.getStatus().getNodeInfo().getBootID(), Verdict.FRESH,
                Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent.holds(TestAgent.DESIRED), now, now.plus(Duration.ofDays(365)));
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(longLived))));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationInvalidLifetime", c.reason());
    }

    @Test
    void agentSayingUnknownIsUnknown() {
        Classification c = classify(attested(node("a"), Verdict.UNKNOWN, Reason.CONTAINERD_AMBIGUOUS, Map.of()));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("ContainerdAmbiguous", c.reason());
    }

    /** The agent's stale reasons a reboot cannot fix: config-pending with the agent's reason, whatever the fingerprint. */
    @Test
    void aStaleThatNoRebootFixesIsConfigPendingNamingTheAgentsReason() {
        for (Reason r : new Reason[] {Reason.REGISTRY_KEY_NEVER_MATCHED, Reason.REGISTRY_AUTHS_OVERRIDE_CONFIGS,
                Reason.HOSTS_TOML_REDIRECTS_PULLS, Reason.CONTAINERD_REFUSES_CONFIG,
                Reason.HOSTS_TOML_CERTIFICATE_MISSING}) {
            for (Map<String, String> held : List.of(agent.holds(TestAgent.DESIRED), agent.holds(TestAgent.OLD), Map.<String, String>of())) {
                Classification c = classify(attested(node("a"), Verdict.STALE, r, held));
                assertEquals(NodeVerdict.CONFIG_PENDING, c.verdict(), r + " holding " + held);
                assertEquals(r.code(), c.reason());
                assertTrue(c.detail().startsWith("a reboot will not fix this, the config must (" + r.code() + "): "), c.detail());
                assertFalse(c.verdict().needsReboot());
            }
        }
    }

    @Test
    void configWithoutDesiredCredentialIsConfigPendingWhetherFreshOrStale() {
        for (Verdict v : new Verdict[] {Verdict.FRESH, Verdict.STALE}) {
            Reason r = v == Verdict.FRESH ? Reason.CONTAINERD_STARTED_AFTER_CONFIG : Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START;
            Classification old = classify(attested(node("a"), v, r, agent.holds(TestAgent.OLD)));
            assertEquals(NodeVerdict.CONFIG_PENDING, old.verdict(), v + " with the old credential");
            assertEquals(NodeClassifier.CONFIG_PENDING_REASON, old.reason());
            Classification none = classify(attested(node("a"), v, r, Map.of("docker.io", "xyz")));
            assertEquals(NodeVerdict.CONFIG_PENDING, none.verdict(), v + " without any credential for ghcr.io");
        }
    }

    @Test
    void registryKeysAreComparedNormalised() {
        Classification c = classify(attested(node("a"), Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                Map.of("https://GHCR.io/", agent.fingerprint(TestAgent.DESIRED))));
        assertEquals(NodeVerdict.FRESH, c.verdict());
    }

    @Test
    void missingConditionOrTokenIsUnknown() {
        Classification none = classify(node("a"));
        assertEquals(NodeVerdict.UNKNOWN, none.verdict());
        assertEquals("AttestationMissing", none.reason());
        Classification noToken = classify(withCondition(node("a"), "True", "fresh, trust me"));
        assertEquals(NodeVerdict.UNKNOWN, noToken.verdict());
        assertEquals("AttestationMissing", noToken.reason());
        assertNull(noToken.claims());
    }

    @Test
    void expiredAttestationIsUnknown() {
        Node n = node("a");
        Instant iat = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        AttestationClaims claims = TestAgent.claims(n, "boot-a", Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED), iat, iat.plus(Duration.ofMinutes(15)));
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(claims))));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationExpired", c.reason());
    }

    @Test
    void forgedAttestationSignedByAnUntrustedKeyIsUnknown() throws Exception {
        Node n = node("a");
        String forged = new AttestationSigner(TestAgent.newKey()).sign(
                TestAgent.claims(n, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent.holds(TestAgent.DESIRED)));
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", forged)));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationUntrustedKey", c.reason());
    }

    @Test
    void tamperedClaimsAreUnknown() {
        Node n = node("a");
        String token = agent.sign(TestAgent.claims(n, Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, agent.holds(TestAgent.DESIRED)));
        String[] parts = token.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"stale\"", "\"fresh\"").replace("ConfigChangedAfterContainerdStart", "ContainerdStartedAfterConfig");
        String tampered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", tampered)));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationBadSignature", c.reason());
    }

    @Test
    void anotherNodesAttestationIsUnknown() {
        Node other = attested(node("b"), Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent.holds(TestAgent.DESIRED));
        String message = other.getStatus().getConditions().get(1).getMessage();
        Classification c = classify(withCondition(node("a"), "True", message));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationWrongNode", c.reason());
    }

    @Test
    void attestationFromAnEarlierBootIsUnknown() {
        Node n = node("a");
        AttestationClaims claims = TestAgent.claims(n, "boot-before", Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                agent.holds(TestAgent.DESIRED), Instant.now().truncatedTo(ChronoUnit.SECONDS), Instant.now().plus(Duration.ofMinutes(15)));
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", agent.sign(claims))));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationWrongBoot", c.reason());
    }

    @Test
    void conditionStatusDisagreeingWithTheSignedVerdictIsUnknown() {
        Node n = node("a");
        String token = agent.sign(TestAgent.claims(n, Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, agent.holds(TestAgent.DESIRED)));
        Classification c = classify(withCondition(n, "True", AttestationMessage.format("s", token)));
        assertEquals(NodeVerdict.UNKNOWN, c.verdict());
        assertEquals("AttestationStatusMismatch", c.reason());
    }

    @Test
    void markerIsReportedButNeverDecides() {
        Node stale = attested(node("a"), Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, agent.holds(TestAgent.DESIRED));
        Node marked = new NodeBuilder(stale).editMetadata().addToAnnotations(MARKER, "rev-7").endMetadata().build();
        Classification c = classify(marked);
        assertEquals(NodeVerdict.STALE, c.verdict());
        assertTrue(c.markerSaysCurrent());
        assertTrue(c.markerContradicts());

        Classification unmarked = classify(stale);
        assertFalse(unmarked.markerSaysCurrent());
        assertFalse(unmarked.markerContradicts());

        Node missing = new NodeBuilder(node("b")).editMetadata().addToAnnotations(MARKER, "rev-7").endMetadata().build();
        Classification noAttestation = classify(missing);
        assertEquals(NodeVerdict.UNKNOWN, noAttestation.verdict());
        assertTrue(noAttestation.markerContradicts());

        Node fresh = attested(node("c"), Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent.holds(TestAgent.DESIRED));
        Classification freshMarked = classify(new NodeBuilder(fresh).editMetadata().addToAnnotations(MARKER, "rev-7").endMetadata().build());
        assertTrue(freshMarked.markerSaysCurrent());
        assertFalse(freshMarked.markerContradicts());
    }

    @Test
    void markerWithAnExpectedValueMustMatchIt() {
        MarkerRule rule = new MarkerRule(MARKER, "rev-8");
        assertTrue(rule.saysCurrent(Map.of(MARKER, "rev-8")));
        assertFalse(rule.saysCurrent(Map.of(MARKER, "rev-7")));
        assertFalse(rule.saysCurrent(Map.of()));
        MarkerRule any = new MarkerRule(MARKER, null);
        assertTrue(any.saysCurrent(Map.of(MARKER, "x")));
        assertFalse(any.saysCurrent(Map.of(MARKER, " ")));
    }

    @Test
    void failureReasonsAreCamelCase() {
        assertEquals("AttestationWrongNodeUid", FailureReasons.of(dev.crifresh.common.attest.VerificationFailure.WRONG_NODE_UID));
        assertEquals("AttestationIssuedInFuture", FailureReasons.of(dev.crifresh.common.attest.VerificationFailure.ISSUED_IN_FUTURE));
    }
}
