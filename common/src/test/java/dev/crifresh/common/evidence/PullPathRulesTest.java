package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.PullCredentials;
import dev.crifresh.common.registry.PullCredentials.Kind;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A credential no pull sends is never fresh, and the reason names which problem it is. */
class PullPathRulesTest {
    /** The reasons only these rules give (EvidenceRulesTest checks that every reason is exercised). */
    static final java.util.Set<Reason> REASONS = java.util.EnumSet.of(Reason.REGISTRY_KEY_NEVER_MATCHED,
            Reason.REGISTRY_AUTHS_OVERRIDE_CONFIGS, Reason.HOSTS_TOML_REDIRECTS_PULLS, Reason.CONTAINERD_REFUSES_CONFIG,
            Reason.HOSTS_TOML_CERTIFICATE_MISSING);

    private static Evaluation of(Reason reason) {
        return new Evaluation(reason.verdict(), reason, reason.verdict() == Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                "the rules' sentence.", null, Instant.EPOCH, "digest", null);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void freshBecomesStaleWithTheProblemsReasonAndStaleOrUnknownKeepTheirs(Kind kind) {
        List<PullCredentials.Problem> problems = List.of(new PullCredentials.Problem(kind, "ghcr.io", "what is wrong"));
        Evaluation fresh = PullPathRules.apply(of(Reason.CONTAINERD_STARTED_AFTER_CONFIG), problems);
        assertEquals(Verdict.STALE, fresh.verdict());
        assertEquals(PullPathRules.reason(kind), fresh.reason());
        assertTrue(REASONS.contains(fresh.reason()));
        assertEquals(Verdict.STALE, fresh.reason().verdict());
        assertEquals(Proof.NONE, fresh.proof());
        assertTrue(fresh.message().contains("what is wrong") && fresh.message().contains("a reboot will not fix this"),
                fresh.message());
        assertEquals("digest", fresh.configDigest());

        Evaluation stale = PullPathRules.apply(of(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START), problems);
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, stale.reason());
        assertTrue(stale.message().startsWith("the rules' sentence. Also, what is wrong"), stale.message());

        Evaluation unknown = of(Reason.CONFIG_UNREADABLE);
        assertSame(unknown, PullPathRules.apply(unknown, problems));
        Evaluation untouched = of(Reason.CONFIG_UNCHANGED_SINCE_LOAD);
        assertSame(untouched, PullPathRules.apply(untouched, List.of()));
    }
}
