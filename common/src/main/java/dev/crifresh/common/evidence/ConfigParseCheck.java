package dev.crifresh.common.evidence;

import java.util.List;

/**
 * Rule 7 ({@link EvidenceRules}' table): a loaded TOML file that does not parse cannot tell which credential containerd holds: the verdict
 * becomes unknown ({@code ConfigUnreadable}), whatever the clocks said. Applied after the rules; the
 * memory the rules returned is kept.
 */
public final class ConfigParseCheck {
    private ConfigParseCheck() {
    }

    public static Evaluation apply(Evaluation evaluation, List<String> parseFailures) {
        if (parseFailures.isEmpty() || evaluation.verdict() == Verdict.UNKNOWN) {
            return evaluation;
        }
        String message = "Config file " + parseFailures.get(0) + " cannot be parsed"
                + (parseFailures.size() > 1 ? " (and " + (parseFailures.size() - 1) + " more)" : "")
                + ", so which credential containerd holds is unknown.";
        return new Evaluation(Verdict.UNKNOWN, Reason.CONFIG_UNREADABLE, Proof.NONE, message,
                evaluation.containerd(), evaluation.containerdStartedAt(), evaluation.configDigest(),
                evaluation.memory());
    }
}
