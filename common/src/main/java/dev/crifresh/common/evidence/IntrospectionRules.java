package dev.crifresh.common.evidence;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Rule 1b (DESIGN, "containerd's own evidence"): what containerd's introspection service says about the process
 * that answers and the registry config it loaded, checked against the process the agent timed and the files it
 * read. A veto only: it can make a node stale or unknown, never fresh; when it finds nothing, the other rules
 * decide. Pure: the answer was read by the agent.
 */
public final class IntrospectionRules {
    /** Recorded by containerd's CRI images plugin when it loads any {@code registry.configs} entry (1.7 and 2.x). */
    public static final String REGISTRY_CONFIGS = "io.containerd.deprecation/cri-registry-configs";
    /**
     * Recorded by containerd's CRI images plugin when it loads any {@code registry.auths} entry (1.7 and 2.x; from
     * source only: containerd {@code pkg/deprecation/deprecation.go} {@code CRIRegistryAuths}).
     */
    public static final String REGISTRY_AUTHS = "io.containerd.deprecation/cri-registry-auths";

    private IntrospectionRules() {
    }

    /** A verdict the check forces, with its sentence. */
    public record Finding(Reason reason, String message) {
    }

    /**
     * @param check      the introspection evidence; null when the check is off
     * @param containerd the single CRI containerd the agent timed
     * @param newestAt   the newest change stamp of the evidence (files and directories)
     * @param newestWhat which stamp that is, for the message
     * @param margin     the rules' effective margin
     * @param observedAt when the agent read the evidence
     * @return the forced verdict, or empty when the check has nothing against the node
     */
    public static Optional<Finding> check(Introspection check, ProcessSample containerd, Instant newestAt,
            String newestWhat, Duration margin, Instant observedAt) {
        if (check == null) {
            return Optional.empty();
        }
        String where = "containerd's introspection service on " + EvidenceRules.oneLine(check.socket());
        IntrospectionAnswer answer = check.answer();
        if (answer instanceof IntrospectionAnswer.Unanswered none) {
            return unknown(Reason.INTROSPECTION_UNAVAILABLE, where + " gave no answer: " + EvidenceRules.oneLine(none.problem()));
        }
        if (!(answer instanceof IntrospectionAnswer.Answered said)) {
            throw new IllegalStateException("unhandled introspection answer " + answer.getClass().getName());
        }
        if (said.pid() == 0) {
            return unknown(Reason.INTROSPECTION_UNAVAILABLE, where + " reports no pid (containerd before 1.7 does not),"
                    + " so its answer cannot be tied to the process the agent timed");
        }
        if (said.pid() != containerd.pid()) {
            return unknown(Reason.INTROSPECTION_OTHER_PROCESS, where + " is answered by pid " + said.pid()
                    + ", not by the containerd the agent timed (pid " + containerd.pid() + ")");
        }
        if (!check.readsAuths() && said.deprecations().stream().anyMatch(d -> d.id().equals(REGISTRY_AUTHS))) {
            return unknown(Reason.RUNTIME_DEPRECATION_UNEXPLAINED, "containerd (pid " + containerd.pid() + ") records "
                    + REGISTRY_AUTHS + ", so it loaded a registry.auths credential, but the agent's reading of the"
                    + " files finds none: containerd reads the files differently (a key's case, a table the agent does"
                    + " not read), so which credential a pull sends is unknown");
        }
        IntrospectionAnswer.Deprecation loaded = said.deprecations().stream()
                .filter(d -> d.id().equals(REGISTRY_CONFIGS)).findFirst().orElse(null);
        if (loaded == null) {
            if (check.credentialHosts().isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Finding(Reason.RUNTIME_LOADED_NO_REGISTRY_CONFIG, "containerd (pid " + containerd.pid()
                    + ") reports no " + REGISTRY_CONFIGS + " deprecation, so it loaded no registry.configs entry, but the"
                    + " config gives credentials for " + EvidenceRules.oneLine(String.join(", ", check.credentialHosts()))));
        }
        if (loaded.lastOccurrence() == null) {
            return unknown(Reason.INTROSPECTION_UNAVAILABLE, where + " reports " + REGISTRY_CONFIGS
                    + " without a time");
        }
        if (loaded.lastOccurrence().isAfter(observedAt.plus(margin))) {
            return unknown(Reason.INTROSPECTION_UNAVAILABLE, where + " reports " + REGISTRY_CONFIGS + " "
                    + Durations.text(Duration.between(observedAt, loaded.lastOccurrence()))
                    + " after the agent read it, so containerd's clock and the agent's disagree");
        }
        Duration gap = Duration.between(newestAt, loaded.lastOccurrence());
        if (gap.compareTo(margin) <= 0) {
            return Optional.of(new Finding(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, "config " + newestWhat + " changed "
                    + (gap.isNegative() ? Durations.text(gap.negated()) + " after" : Durations.text(gap)
                            + " before, within the " + Durations.text(margin) + " margin of,")
                    + " containerd (pid " + containerd.pid() + ") loaded its registry config (" + REGISTRY_CONFIGS
                    + " at " + loaded.lastOccurrence() + ")"));
        }
        return Optional.empty();
    }

    private static Optional<Finding> unknown(Reason reason, String message) {
        return Optional.of(new Finding(reason, message));
    }
}
