package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.Observation;
import java.util.List;

/**
 * One read of the node: the evidence for the rules, and the TOML documents (the same bytes that were
 * hashed) for the registry fingerprints, and the processes that may be containerd but could not be read
 * ({@link ProcessScan#unreadable()}).
 */
public record HostSnapshot(Observation observation, List<ConfigDocument> tomlDocuments,
                           List<String> unreadableProcesses) {
    public HostSnapshot {
        tomlDocuments = List.copyOf(tomlDocuments);
        unreadableProcesses = List.copyOf(unreadableProcesses);
    }
}
