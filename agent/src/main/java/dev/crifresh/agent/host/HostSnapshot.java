package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.Observation;
import java.util.List;

/**
 * One read of the node: the evidence for the rules, the TOML documents containerd loads (the same bytes
 * that were hashed, in containerd's load order) for the registry fingerprints, the processes that may be
 * containerd but could not be read or told apart ({@link ProcessScan#unreadable()}), and the loaded files
 * that are not valid UTF-8 ({@code path: problem}; containerd cannot parse them either).
 */
public record HostSnapshot(Observation observation, List<ConfigDocument> tomlDocuments,
                           List<String> unreadableProcesses, List<String> undecodable) {
    public HostSnapshot {
        tomlDocuments = List.copyOf(tomlDocuments);
        unreadableProcesses = List.copyOf(unreadableProcesses);
        undecodable = List.copyOf(undecodable);
    }
}
