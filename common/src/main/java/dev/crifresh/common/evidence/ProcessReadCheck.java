package dev.crifresh.common.evidence;

import java.util.List;

/**
 * Rule 9 ({@link EvidenceRules}' table): a process that may be the CRI containerd but could not be read might be a second containerd: the
 * verdict becomes unknown ({@code ContainerdAmbiguous}), whatever the rules concluded from the
 * processes that could be read — also when none could be read ({@code ContainerdNotFound} would hide it). Applied after the rules; the memory the rules returned is kept.
 */
public final class ProcessReadCheck {
    private ProcessReadCheck() {
    }

    public static Evaluation apply(Evaluation evaluation, List<String> unreadableProcesses) {
        if (unreadableProcesses.isEmpty() || (evaluation.verdict() == Verdict.UNKNOWN
                && evaluation.reason() != Reason.CONTAINERD_NOT_FOUND)) {
            return evaluation;
        }
        String message = "Which containerd runs is ambiguous: " + unreadableProcesses.get(0)
                + (unreadableProcesses.size() > 1 ? " (and " + (unreadableProcesses.size() - 1) + " more)" : "")
                + ".";
        return new Evaluation(Verdict.UNKNOWN, Reason.CONTAINERD_AMBIGUOUS, Proof.NONE, message,
                evaluation.containerd(), evaluation.containerdStartedAt(), evaluation.configDigest(),
                evaluation.memory());
    }
}
