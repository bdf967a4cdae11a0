package dev.crifresh.agent.loop;

import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import java.util.Map;

/**
 * One complete evaluation of the node: what was read, what the rules concluded and the registry
 * fingerprints of the config files read.
 *
 * @param evaluatedNanos {@link System#nanoTime()} when the read began, to measure detection latency
 */
public record Assessment(Observation observation, Evaluation evaluation, Map<String, String> registries,
                         long evaluatedNanos) {
    public Assessment {
        registries = Map.copyOf(registries);
    }
}
