package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.CONTAINERD_TOML;
import static dev.crifresh.common.evidence.Given.CRI_TOML;
import static dev.crifresh.common.evidence.Given.PID;
import static dev.crifresh.common.evidence.Given.cri;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The opt-in runtime-status rule: containerd's own report of the credentials it holds, once identity is settled. */
class EvidenceRulesRuntimeTest {
    private static final RuntimeAuth SAME = new RuntimeAuth(RuntimeAuth.State.SAME, "CRI status, 1 registry");
    private static final RuntimeAuth DIFFERENT = new RuntimeAuth(RuntimeAuth.State.DIFFERENT, "CRI status: registry ghcr.io");
    /** The reasons only this rule produces (EvidenceRulesTest checks that every reason is exercised somewhere). */
    static final Set<Reason> REASONS = EnumSet.of(Reason.RUNTIME_STATUS_MATCHES_CONFIG, Reason.RUNTIME_CREDENTIAL_DIFFERS);

    private static Evaluation eval(Given g, RuntimeAuth runtime) {
        return EvidenceRules.evaluate(g.build(), RuleSettings.defaults(), null, runtime);
    }

    @Test
    void theSameCredentialsAreFreshWhateverTheClocksSay() {
        Evaluation changedAfterStart = eval(given().changed(CRI_TOML, ms(30_000), "ctime"), SAME);
        assertEquals(Reason.RUNTIME_STATUS_MATCHES_CONFIG, changedAfterStart.reason());
        assertEquals(Proof.RUNTIME_STATUS, changedAfterStart.proof());
        assertEquals(Verdict.FRESH, changedAfterStart.verdict());
        assertEquals(Reason.RUNTIME_STATUS_MATCHES_CONFIG,
                eval(given().touch(CONTAINERD_TOML, ms(-1000)), SAME).reason(), "a config older than the boot");
        assertEquals(Reason.RUNTIME_STATUS_MATCHES_CONFIG,
                eval(given().changed(CRI_TOML, ms(90_000), "ctime"), SAME).reason(), "a ctime from the future");
    }

    @Test
    void otherCredentialsAreStaleWhateverTheStampsSay() {
        Evaluation ordered = eval(given(), DIFFERENT);
        assertEquals(Reason.RUNTIME_CREDENTIAL_DIFFERS, ordered.reason());
        assertEquals(Verdict.STALE, ordered.verdict());
        assertEquals(Proof.NONE, ordered.proof());
    }

    @Test
    void withoutAnAnswerTodaysRulesDecide() {
        for (Given g : new Given[] {given(), given().changed(CRI_TOML, ms(30_000), "ctime")}) {
            assertEquals(EvidenceRules.evaluate(g.build(), RuleSettings.defaults(), null).reason(),
                    eval(g, new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, "no registry section (containerd 2.x)")).reason());
        }
    }

    @Test
    void identityComesFirst() {
        assertEquals(Reason.CONTAINERD_AMBIGUOUS, eval(given().containerds(cri(PID, 500), cri(1300, 700)), SAME).reason());
        assertEquals(Reason.CONTAINERD_NOT_FOUND, eval(given().containerds(), SAME).reason());
        assertEquals(Reason.CONFIG_UNREADABLE, eval(given().unreadable(CRI_TOML, "permission denied"), SAME).reason());
        assertEquals(Reason.CONFIG_UNWATCHED_IMPORT, eval(given().unwatchedImport("/etc/x.toml"), SAME).reason());
    }

    @Test
    void aRuntimeStatusFreshIsNotAContentProof() {
        Evaluation e = eval(given().changed(CRI_TOML, ms(30_000), "ctime"), SAME);
        // Rule 4's memory is untouched: a later evaluation without the runtime's answer is not fresh by content.
        Evaluation next = EvidenceRules.evaluate(given().changed(CRI_TOML, ms(30_000), "ctime").build(),
                RuleSettings.defaults(), e.memory());
        assertEquals(Verdict.STALE, next.verdict());
    }
}
