package dev.crifresh.agent.loop;

import dev.crifresh.common.evidence.EvidenceRules;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.RuntimeAuth;

/**
 * A proof the operator asked for that the running containerd cannot give (the runtime-status proof on
 * containerd 2.x, whose CRI status reports no registry section; or its socket did not answer): the evaluation
 * went on with the other rules, and says so — in the condition's message, in {@code observe}'s output and as a
 * metric — never silently.
 *
 * @param requested the proof asked for ({@code runtime-status})
 * @param used      the proof the verdict rests on instead ({@code none} when it is not fresh)
 * @param why       why the requested proof does not apply (never a credential)
 */
public record ProofFallback(String requested, String used, String why) {
    public static final String RUNTIME_STATUS = "runtime-status";

    /** The fallback of an evaluation that asked the CRI runtime, or null when its answer decided or was used. */
    public static ProofFallback of(RuntimeAuth runtime, Evaluation evaluation) {
        if (runtime.state() != RuntimeAuth.State.UNAVAILABLE) {
            return null;
        }
        return new ProofFallback(RUNTIME_STATUS, evaluation.proof().wire(), EvidenceRules.oneLine(runtime.detail()));
    }

    /** The evaluation with this fallback named at the end of its message; everything else unchanged. */
    public Evaluation applyTo(Evaluation e) {
        String message = e.message() + " (the requested " + requested + " proof does not apply: " + why
                + "; proof used instead: " + used + ")";
        return new Evaluation(e.verdict(), e.reason(), e.proof(), message, e.containerd(), e.containerdStartedAt(),
                e.configDigest(), e.memory());
    }
}
