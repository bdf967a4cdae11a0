package dev.crifresh.agent.loop;

import dev.crifresh.agent.host.ProcStat;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import java.util.List;
import java.util.Map;

/**
 * One complete evaluation of the node: what was read, what the rules concluded and the registry
 * fingerprints of the config files read.
 *
 * @param evaluatedNanos {@link System#nanoTime()} when the read began, to measure detection latency
 * @param fallback       a requested proof that did not apply and what was used instead; null when none
 * @param torn           the watched files that kept changing while read (unreadable here): the loop reads the node
 *                       again a little later before it hands this assessment on ({@link Reread})
 */
public record Assessment(Observation observation, Evaluation evaluation, Map<String, String> registries,
                         long evaluatedNanos, ProofFallback fallback, List<String> torn) {
    public Assessment {
        registries = Map.copyOf(registries);
        torn = List.copyOf(torn);
    }

    public Assessment(Observation observation, Evaluation evaluation, Map<String, String> registries,
                      long evaluatedNanos) {
        this(observation, evaluation, registries, evaluatedNanos, null, List.of());
    }

    /**
     * An evaluation that did not complete: nothing was observed (no boot id, no processes, no files),
     * so the verdict is unknown ({@code HostUnreadable}) and it is published without an attestation.
     */
    public static Assessment failed(String why, long evaluatedNanos) {
        Observation nothing = new Observation(null, null, why, ProcStat.CLK_TCK, List.of(), List.of(), null);
        Evaluation unknown = new Evaluation(Verdict.UNKNOWN, Reason.HOST_UNREADABLE, Proof.NONE,
                "The node could not be evaluated (" + why + ")", null, null, null, null);
        return new Assessment(nothing, unknown, Map.of(), evaluatedNanos);
    }
}
