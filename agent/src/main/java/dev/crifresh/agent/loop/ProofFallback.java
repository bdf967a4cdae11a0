package dev.crifresh.agent.loop;

import dev.crifresh.common.evidence.EvidenceRules;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.RequestedProof;
import dev.crifresh.common.evidence.RuntimeAuth;

/**
 * A proof the operator asked for that the running containerd cannot give (the runtime-status proof on
 * containerd 2.x, whose CRI status reports no registry section; or its socket did not answer): the evaluation
 * went on with the other rules, and says so — in the condition's message, in {@code observe}'s output and as a
 * metric — never silently. The message is rule 11's ({@link RequestedProof}); this value feeds the metrics and
 * {@code observe}.
 *
 * @param requested the proof asked for ({@code runtime-status})
 * @param used      the proof the verdict rests on instead ({@code none} when it is not fresh)
 * @param why       why the requested proof does not apply (never a credential)
 */
public record ProofFallback(String requested, String used, String why) {
    public static final String RUNTIME_STATUS = RequestedProof.RUNTIME_STATUS;

    /** The fallback of an evaluation that asked the CRI runtime, or null when its answer decided or was used. */
    public static ProofFallback of(RuntimeAuth runtime, Evaluation evaluation) {
        if (!RequestedProof.fellBack(runtime, true)) {
            return null;
        }
        return new ProofFallback(RUNTIME_STATUS, evaluation.proof().wire(), EvidenceRules.oneLine(runtime.detail()));
    }

    /** The evaluation with this fallback named at the end of its message (rule 11); everything else unchanged. */
    public Evaluation applyTo(Evaluation e) {
        return RequestedProof.note(e, requested, why);
    }
}
