package dev.crifresh.coordinator.rollout.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.MarkerRule;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.TestAgent;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class ClassificationCacheTest {
    private final TestAgent agent = new TestAgent();
    private final ClassificationCache cache = new ClassificationCache(new NodeClassifier(
            new AttestationVerifier(agent.trust, Duration.ZERO), "ghcr.io", agent.fingerprint(TestAgent.DESIRED),
            new MarkerRule(ConditionContract.DEFAULT_MARKER_ANNOTATION, null)));
    private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private Node node(Verdict verdict, boolean ready, Instant exp) {
        Node base = new NodeBuilder().withNewMetadata().withName("a").withUid("uid-a").endMetadata().withNewSpec().endSpec()
                .withNewStatus().withNewNodeInfo().withBootID("boot-a").endNodeInfo().endStatus().build();
        Reason reason = verdict == Verdict.FRESH ? Reason.CONTAINERD_STARTED_AFTER_CONFIG : Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START;
        AttestationClaims claims = TestAgent.claims(base, "boot-a", verdict, reason, agent.holds(TestAgent.DESIRED), now, exp);
        return new NodeBuilder(base).editStatus()
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .addNewCondition().withType(ConditionContract.CONDITION_TYPE).withStatus(verdict.conditionStatus())
                .withMessage(AttestationMessage.format("s", agent.sign(claims))).endCondition().endStatus().build();
    }

    @Test
    void reusesAVerdictWhileItsInputsAreUnchangedButCarriesTheNewNodeState() {
        Instant exp = now.plus(Duration.ofMinutes(15));
        assertEquals(NodeVerdict.FRESH, cache.classify(NodeFacts.of(node(Verdict.FRESH, true, exp)), now).verdict());
        Classification later = cache.classify(NodeFacts.of(node(Verdict.FRESH, false, exp)), now.plusSeconds(5));
        assertEquals(NodeVerdict.FRESH, later.verdict());
        assertFalse(later.node().ready(), "the cached verdict must carry the node's current state");
    }

    @Test
    void aChangedAttestationIsClassifiedAgain() {
        Instant exp = now.plus(Duration.ofMinutes(15));
        assertEquals(NodeVerdict.FRESH, cache.classify(NodeFacts.of(node(Verdict.FRESH, true, exp)), now).verdict());
        assertEquals(NodeVerdict.STALE, cache.classify(NodeFacts.of(node(Verdict.STALE, true, exp)), now.plusSeconds(1)).verdict());
    }

    @Test
    void cachedAnswersOnlyWhatClassifyWouldReuse() {
        Instant exp = now.plusSeconds(60);
        NodeFacts fresh = NodeFacts.of(node(Verdict.FRESH, true, exp));
        assertNull(cache.cached(fresh, now), "nothing classified yet");
        cache.classify(fresh, now);
        Classification again = cache.cached(NodeFacts.of(node(Verdict.FRESH, false, exp)), now.plusSeconds(1));
        assertEquals(NodeVerdict.FRESH, again.verdict());
        assertFalse(again.node().ready(), "the cached verdict must carry the node's current state");
        assertNull(cache.cached(NodeFacts.of(node(Verdict.STALE, true, exp)), now.plusSeconds(1)), "a changed attestation");
        assertNull(cache.cached(fresh, now.plusSeconds(31)), "older than the cache's 30 s");
        assertNull(cache.cached(fresh, exp), "at the attestation's expiry");
    }

    @Test
    void anEntryNeverOutlivesTheAttestation() {
        Instant exp = now.plusSeconds(10);
        Node n = node(Verdict.FRESH, true, exp);
        assertEquals(NodeVerdict.FRESH, cache.classify(NodeFacts.of(n), now).verdict());
        Classification expired = cache.classify(NodeFacts.of(n), now.plusSeconds(20));
        assertEquals(NodeVerdict.UNKNOWN, expired.verdict());
        assertEquals("AttestationExpired", expired.reason());
        assertTrue(expired.detail().contains("expired"), expired.detail());
    }
}
