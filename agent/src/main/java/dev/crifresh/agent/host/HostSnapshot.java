package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.Observation;
import java.util.List;

/**
 * One read of the node: the evidence for the rules, and the TOML documents (the same bytes that were
 * hashed) for the registry fingerprints.
 */
public record HostSnapshot(Observation observation, List<ConfigDocument> tomlDocuments) {
    public HostSnapshot {
        tomlDocuments = List.copyOf(tomlDocuments);
    }
}
