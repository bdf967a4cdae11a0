package dev.crifresh.agent.expire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpiryRuleTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final String LEADER = "crifresh-agent-x7k2p";

    static Node node(NodeCondition... conditions) {
        List<NodeCondition> list = new ArrayList<>();
        list.add(new NodeConditionBuilder().withType("Ready").withStatus("True").build());
        list.addAll(List.of(conditions));
        return new NodeBuilder().withNewMetadata().withName("worker-1").withResourceVersion("7").endMetadata()
                .withNewStatus().withConditions(list).endStatus().build();
    }

    @Test
    void aConditionBeforeItsExpIsLive() {
        NodeCondition c = Tokens.attested("worker-1", Verdict.FRESH, NOW.minusSeconds(60), NOW.plusSeconds(1));
        assertEquals(new Judgement.Live(NOW.plusSeconds(1)), ExpiryRule.judge(node(c), NOW, LEADER));
    }

    @Test
    void atItsExpATrueConditionIsDowngradedAndKeepsItsToken() {
        NodeCondition c = Tokens.attested("worker-1", Verdict.FRESH, NOW.minusSeconds(900), NOW);
        Judgement.Downgrade d = assertInstanceOf(Judgement.Downgrade.class, ExpiryRule.judge(node(c), NOW, LEADER));
        assertEquals(c, d.before());
        assertEquals(AttestationMessage.token(c.getMessage()), AttestationMessage.token(d.message()),
                "the coordinator still reads the expiry from the token");
        assertTrue(d.message().startsWith("the attestation (True) expired at " + NOW
                + " and no agent renewed it; marked Unknown by the expiry leader " + LEADER), d.message());
    }

    @Test
    void anExpiredFalseIsDowngradedToo() {
        NodeCondition c = Tokens.attested("worker-1", Verdict.STALE, NOW.minusSeconds(900), NOW.minusSeconds(1));
        assertInstanceOf(Judgement.Downgrade.class, ExpiryRule.judge(node(c), NOW, LEADER));
    }

    @Test
    void anUnknownConditionIsLeftEvenWhenExpired() {
        NodeCondition c = Tokens.attested("worker-1", Verdict.UNKNOWN, NOW.minusSeconds(900), NOW.minusSeconds(60));
        assertEquals(new Judgement.Leave("the condition says Unknown"), ExpiryRule.judge(node(c), NOW, LEADER));
    }

    @Test
    void aNodeWithoutTheConditionIsLeft() {
        assertEquals(new Judgement.Leave("no ContainerdConfigFresh condition"), ExpiryRule.judge(node(), NOW, LEADER));
    }

    @Test
    void trueWithoutAnAttestationIsDowngradedAtOnce() {
        NodeCondition c = Tokens.condition("True", "all fine, trust me");
        Judgement.Downgrade d = assertInstanceOf(Judgement.Downgrade.class, ExpiryRule.judge(node(c), NOW, LEADER));
        assertEquals("the condition said True without an attestation; marked Unknown by the expiry leader " + LEADER,
                d.message());
    }

    @Test
    void trueWithAnUnreadableAttestationIsDowngradedAtOnce() {
        NodeCondition c = Tokens.condition("True", AttestationMessage.format("fine", "not.a.jws!"));
        Judgement.Downgrade d = assertInstanceOf(Judgement.Downgrade.class, ExpiryRule.judge(node(c), NOW, LEADER));
        assertTrue(d.message().contains("with an attestation that cannot be read"), d.message());
    }

    @Test
    void anExpBeyondTheLongestLifetimeTheCoordinatorAcceptsCountsOnlyThatFar() {
        Instant iat = NOW.minus(Duration.ofMinutes(61));
        NodeCondition c = Tokens.attested("worker-1", Verdict.FRESH, iat, NOW.plus(Duration.ofDays(365)));
        Judgement.Downgrade d = assertInstanceOf(Judgement.Downgrade.class, ExpiryRule.judge(node(c), NOW, LEADER));
        assertTrue(d.message().contains("expired at " + iat.plus(Duration.ofHours(1))), d.message());
    }
}
