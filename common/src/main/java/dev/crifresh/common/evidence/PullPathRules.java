package dev.crifresh.common.evidence;

import dev.crifresh.common.registry.PullCredentials;
import java.util.List;

/**
 * A credential the files spell that no pull sends ({@link PullCredentials.Problem}: a key no pull looks up,
 * {@code registry.auths} overriding {@code registry.configs}, {@code hosts.toml} sending the pulls elsewhere)
 * is never fresh. containerd holds exactly what the files say, so a reboot cannot fix it: the verdict is stale
 * with a reason that names the problem, and the published fingerprint is the credential pulls do send (the
 * coordinator then finds the desired credential missing when it is: config-pending, no reboot). A verdict that
 * is already stale for a reboot-worthy reason keeps its reason and says the rest; unknown stays unknown. Applied
 * as rule 8 of {@link EvidenceRules}' table, after the parse check (rule 7); the memory the rules returned is kept (it
 * concerns the config's bytes, not the pull path). Pure.
 */
public final class PullPathRules {
    private PullPathRules() {
    }

    public static Evaluation apply(Evaluation evaluation, List<PullCredentials.Problem> problems) {
        if (problems.isEmpty() || evaluation.verdict() == Verdict.UNKNOWN) {
            return evaluation;
        }
        PullCredentials.Problem first = problems.get(0);
        String more = problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : "";
        if (evaluation.verdict() == Verdict.STALE) {
            return new Evaluation(evaluation.verdict(), evaluation.reason(), evaluation.proof(),
                    evaluation.message() + " Also, " + first.detail() + more + "; a reboot will not change that.",
                    evaluation.containerd(), evaluation.containerdStartedAt(), evaluation.configDigest(),
                    evaluation.memory());
        }
        String message = "No pull sends a credential the config names: " + first.detail() + more + ". containerd"
                + " holds what the files say, so a reboot will not fix this; the registry configuration must change.";
        return new Evaluation(Verdict.STALE, reason(first.kind()), Proof.NONE, message, evaluation.containerd(),
                evaluation.containerdStartedAt(), evaluation.configDigest(), evaluation.memory());
    }

    public static Reason reason(PullCredentials.Kind kind) {
        return switch (kind) {
            case KEY_NEVER_MATCHED -> Reason.REGISTRY_KEY_NEVER_MATCHED;
            case AUTHS_OVERRIDE_CONFIGS -> Reason.REGISTRY_AUTHS_OVERRIDE_CONFIGS;
            case HOSTS_TOML_REDIRECTS -> Reason.HOSTS_TOML_REDIRECTS_PULLS;
            case CONFIG_REFUSED -> Reason.CONTAINERD_REFUSES_CONFIG;
            case HOSTS_CERTIFICATE_MISSING -> Reason.HOSTS_TOML_CERTIFICATE_MISSING;
        };
    }
}
