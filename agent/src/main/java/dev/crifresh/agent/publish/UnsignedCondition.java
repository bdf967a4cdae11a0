package dev.crifresh.agent.publish;

import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;

/**
 * The condition written when an assessment cannot be attested (no boot id to bind the token to, a
 * failed evaluation, claims the signer refuses): status Unknown and no {@code attestation=} token,
 * which every verifier reads as unknown. Leaving the last signed condition in place instead would let
 * an earlier "fresh" stand until its {@code exp}.
 */
final class UnsignedCondition {
    private UnsignedCondition() {
    }

    /** Why the assessment cannot be signed, or null when it can be. */
    static String problem(Assessment a) {
        if (a.observation().bootId() == null) {
            return "the boot id is unreadable, so no attestation can be bound to this boot";
        }
        return null;
    }

    /** The evaluation's own reason when it is already unknown, else HostUnreadable. */
    static Reason reason(Evaluation e) {
        return e.verdict() == Verdict.UNKNOWN ? e.reason() : Reason.HOST_UNREADABLE;
    }

    /** One sentence without the attestation marker. */
    static String message(Evaluation e, String problem) {
        if (e.verdict() == Verdict.UNKNOWN) {
            return e.message() + "; not attested: " + problem;
        }
        return "Cannot attest the node (" + problem + "); the " + e.verdict().wire()
                + " verdict is withheld: " + e.message();
    }
}
