package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.BOOT;
import static dev.crifresh.common.evidence.Given.PID;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 1b, containerd's introspection answer (DESIGN, "containerd's own evidence"), one test per branch. The
 * default observation is a fresh Talos boot (config at 2.050 s, containerd pid 1234 started at 5 s): without the
 * check it is fresh by ordering, so every stale or unknown below comes from the check alone.
 */
class IntrospectionRulesTest {
    /** The reasons only this check produces, each asserted below. */
    static final java.util.Set<Reason> REASONS = java.util.EnumSet.of(Reason.INTROSPECTION_UNAVAILABLE,
            Reason.INTROSPECTION_OTHER_PROCESS, Reason.RUNTIME_LOADED_NO_REGISTRY_CONFIG,
            Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, Reason.RUNTIME_DEPRECATION_UNEXPLAINED);
    private static final RuleSettings TALOS = RuleSettings.defaults();
    private static final String SOCKET = "/run/containerd/containerd.sock";
    private static final List<String> GHCR = List.of("ghcr.io");

    private static IntrospectionAnswer.Deprecation configs(Duration sinceBoot) {
        return new IntrospectionAnswer.Deprecation(IntrospectionRules.REGISTRY_CONFIGS, "`configs` is deprecated",
                BOOT.plus(sinceBoot));
    }

    private static IntrospectionAnswer answered(long pid, IntrospectionAnswer.Deprecation... deprecations) {
        return new IntrospectionAnswer.Answered("30cddbda-6e18-4953-88ad-b689fc4bc1d2", pid, 4026531836L,
                List.of(deprecations));
    }

    private static Evaluation judge(Observation o, IntrospectionAnswer answer, List<String> hosts) {
        return EvidenceRules.evaluate(o.withIntrospection(new Introspection(SOCKET, answer, hosts, false)), TALOS, null);
    }

    private static Evaluation judge(IntrospectionAnswer answer, List<String> hosts) {
        return judge(given().build(), answer, hosts);
    }

    @Test
    void withoutTheCheckTheDefaultIsFreshByOrdering() {
        Evaluation e = EvidenceRules.evaluate(given().build(), TALOS, null);
        assertEquals(Proof.ORDERING, e.proof(), e.message());
    }

    @Test
    void anAnswerThatAgreesLeavesTheVerdictToTheOtherRules() {
        Evaluation e = judge(answered(PID, configs(ms(5300))), GHCR);
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, e.reason(), e.message());
        assertEquals(Proof.ORDERING, e.proof());
    }

    @Test
    void itNeverProvesFreshOnItsOwn() {
        // The config changed after containerd started: the stamps make it stale even though the answer agrees
        // (a deprecation time later than the change, as a clock stepped forward would show).
        Evaluation e = judge(given().criToml(ms(30_000), "## merged v2\n").build(),
                answered(PID, configs(ms(40_000))), GHCR);
        assertEquals(Verdict.STALE, e.verdict(), e.message());
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, e.reason());
    }

    @Test
    void noCredentialAndNoDeprecationAgree() {
        Evaluation e = judge(answered(PID), List.of());
        assertEquals(Proof.ORDERING, e.proof(), e.message());
    }

    @Test
    void aSocketThatGaveNoAnswerIsUnknownNamingWhy() {
        Evaluation e = judge(new IntrospectionAnswer.Unanswered("no answer within 2000 ms"), GHCR);
        assertEquals(Reason.INTROSPECTION_UNAVAILABLE, e.reason());
        assertEquals(Verdict.UNKNOWN, e.verdict());
        assertTrue(e.message().contains(SOCKET) && e.message().contains("no answer within 2000 ms"), e.message());
    }

    @Test
    void aContainerdWithoutPidIsUnknown() {
        Evaluation e = judge(answered(0, configs(ms(5300))), GHCR);
        assertEquals(Reason.INTROSPECTION_UNAVAILABLE, e.reason());
        assertTrue(e.message().contains("no pid"), e.message());
    }

    @Test
    void anotherProcessOnTheSocketIsUnknown() {
        Evaluation e = judge(answered(PID + 1, configs(ms(5300))), GHCR);
        assertEquals(Reason.INTROSPECTION_OTHER_PROCESS, e.reason());
        assertEquals(Verdict.UNKNOWN, e.verdict());
        assertTrue(e.message().contains("pid 1235") && e.message().contains("pid 1234"), e.message());
    }

    @Test
    void credentialsInTheFilesButNoDeprecationMeanContainerdLoadedNone() {
        Evaluation e = judge(answered(PID), GHCR);
        assertEquals(Reason.RUNTIME_LOADED_NO_REGISTRY_CONFIG, e.reason());
        assertEquals(Verdict.STALE, e.verdict());
        assertTrue(e.message().contains("ghcr.io"), e.message());
    }

    @Test
    void anOtherDeprecationDoesNotCount() {
        IntrospectionAnswer.Deprecation mirrors = new IntrospectionAnswer.Deprecation(
                "io.containerd.deprecation/cri-registry-mirrors", "`mirrors` is deprecated", BOOT.plus(ms(5300)));
        assertEquals(Reason.RUNTIME_LOADED_NO_REGISTRY_CONFIG, judge(answered(PID, mirrors), GHCR).reason());
    }

    @Test
    void aChangeAfterTheDeprecationWasRecordedIsStaleWithoutTrustingProc() {
        // containerd's start in /proc says 20 s, long after every stamp: rule 3 alone would say fresh.
        Observation o = given().startTicks(2000).criToml(ms(10_000), "## merged v2\n").build();
        assertEquals(Proof.ORDERING, EvidenceRules.evaluate(o, TALOS, null).proof());
        Evaluation e = judge(o, answered(PID, configs(ms(5300))), GHCR);
        assertEquals(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, e.reason(), e.message());
        assertEquals(Verdict.STALE, e.verdict());
        assertTrue(e.message().contains("4.700 s after"), e.message());
    }

    @Test
    void aChangeWithinTheMarginBeforeTheDeprecationIsStale() {
        Evaluation e = judge(answered(PID, configs(ms(2050 + 50))), GHCR);
        assertEquals(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, e.reason(), e.message());
        assertTrue(e.message().contains("within the 50 ms margin"), e.message());
        assertEquals(Proof.ORDERING, judge(answered(PID, configs(ms(2050 + 51))), GHCR).proof());
    }

    @Test
    void aDirectoryChangeCountsAsAChangeToTheEvidence() {
        Observation o = given().directory("/etc/cri/conf.d", ms(6000)).build();
        Evaluation e = judge(o, answered(PID, configs(ms(5300))), GHCR);
        assertEquals(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, e.reason(), e.message());
    }

    @Test
    void theDeprecationTimeAlsoBoundsAConfigWithoutCredentials() {
        Observation o = given().criToml(ms(10_000), "## merged v2\n").startTicks(2000).build();
        assertEquals(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, judge(o, answered(PID, configs(ms(5300))), List.of()).reason());
    }

    @Test
    void aDeprecationWithoutATimeIsUnknown() {
        IntrospectionAnswer.Deprecation timeless = new IntrospectionAnswer.Deprecation(
                IntrospectionRules.REGISTRY_CONFIGS, "`configs` is deprecated", null);
        Evaluation e = judge(answered(PID, timeless), GHCR);
        assertEquals(Reason.INTROSPECTION_UNAVAILABLE, e.reason());
        assertTrue(e.message().contains("without a time"), e.message());
    }

    @Test
    void aDeprecationFromTheFutureIsUnknown() {
        Evaluation e = judge(answered(PID, configs(Duration.ofSeconds(90))), GHCR);
        assertEquals(Reason.INTROSPECTION_UNAVAILABLE, e.reason());
        assertTrue(e.message().contains("after the agent read it"), e.message());
    }

    private static IntrospectionAnswer.Deprecation auths(Duration sinceBoot) {
        return new IntrospectionAnswer.Deprecation(IntrospectionRules.REGISTRY_AUTHS, "`auths` is deprecated",
                BOOT.plus(sinceBoot));
    }

    /**
     * containerd 2.x decodes {@code Auths} case-insensitively; the agent reads exact keys. containerd then records
     * cri-registry-auths while the agent's reading has no {@code auths}: they read the files differently, a doubt.
     */
    @Test
    void anAuthsDeprecationTheReadingDoesNotExplainIsUnknown() {
        Observation o = given().build().withIntrospection(new Introspection(SOCKET,
                answered(PID, configs(ms(5300)), auths(ms(5300))), GHCR, false));
        Evaluation e = EvidenceRules.evaluate(o, TALOS, null);
        assertEquals(Reason.RUNTIME_DEPRECATION_UNEXPLAINED, e.reason(), e.message());
        assertEquals(Verdict.UNKNOWN, e.verdict());
        assertTrue(e.message().contains(IntrospectionRules.REGISTRY_AUTHS), e.message());
        // the same answer with no configs credential at all is still this doubt, before "loaded no registry config"
        Observation none = given().build().withIntrospection(new Introspection(SOCKET, answered(PID, auths(ms(5300))),
                List.of(), false));
        assertEquals(Reason.RUNTIME_DEPRECATION_UNEXPLAINED, EvidenceRules.evaluate(none, TALOS, null).reason());
    }

    @Test
    void anAuthsDeprecationTheReadingExplainsLeavesTheVerdictToTheOtherRules() {
        Observation o = given().build().withIntrospection(new Introspection(SOCKET,
                answered(PID, configs(ms(5300)), auths(ms(5300))), GHCR, true));
        Evaluation e = EvidenceRules.evaluate(o, TALOS, null);
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, e.reason(), e.message());
        // and a reading with auths but no such deprecation is no doubt of this kind either
        Observation quiet = given().build().withIntrospection(new Introspection(SOCKET,
                answered(PID, configs(ms(5300))), GHCR, true));
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, EvidenceRules.evaluate(quiet, TALOS, null).reason());
    }

    @Test
    void identityProblemsComeFirst() {
        Observation twoContainerds = given().containerds(Given.cri(PID, 500), Given.cri(PID + 1, 600)).build();
        assertEquals(Reason.CONTAINERD_AMBIGUOUS,
                judge(twoContainerds, new IntrospectionAnswer.Unanswered("refused"), GHCR).reason());
    }

    @Test
    void theCheckVetoesTheRuntimeStatusProof() {
        Observation o = given().build().withIntrospection(new Introspection(SOCKET, answered(PID), GHCR, false));
        Evaluation e = EvidenceRules.evaluate(o, TALOS, null,
                new RuntimeAuth(RuntimeAuth.State.SAME, "CRI status, 1 registry"));
        assertEquals(Reason.RUNTIME_LOADED_NO_REGISTRY_CONFIG, e.reason(), e.message());
    }

    @Test
    void anUnknownAnswerTypeFailsLoudly() {
        // The sealed type has exactly two kinds; both are covered above. The check's last branch throws.
        assertEquals(2, IntrospectionAnswer.class.getPermittedSubclasses().length);
        Instant now = BOOT.plusSeconds(60);
        assertTrue(IntrospectionRules.check(null, Given.cri(PID, 500), now, "x", ms(50), now).isEmpty());
    }
}
