package dev.crifresh.common.evidence;

/**
 * DESIGN §3 rules 1–6 as one pure function: the same observation, settings and memory always give the
 * same evaluation. Every doubt ends as stale or unknown, never as fresh.
 */
public final class EvidenceRules {
    private EvidenceRules() {
    }

    /**
     * @param observation what was read on the node
     * @param settings    margin and Talos mode
     * @param previous    the memory returned by the previous evaluation, or null on the first one
     */
    public static Evaluation evaluate(Observation observation, RuleSettings settings, EvaluationMemory previous) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
