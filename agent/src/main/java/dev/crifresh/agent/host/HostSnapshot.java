package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.registry.PullCredentials;
import java.util.List;
import java.util.Objects;

/**
 * One read of the node: the evidence for the rules, the TOML documents containerd loads (the same bytes
 * that were hashed, in containerd's load order) for the registry fingerprints, the processes that may be
 * containerd but could not be read or told apart ({@link ProcessScan#unreadable()}), and the loaded files
 * that are not valid UTF-8 ({@code path: problem}; containerd cannot parse them either), and the
 * {@code hosts.toml} tree under {@code registry.config_path} as seen from the same root (read when the registry
 * fingerprints are computed: containerd reads it at every pull, not at its start).
 */
public record HostSnapshot(Observation observation, List<ConfigDocument> tomlDocuments,
                           List<String> unreadableProcesses, List<String> undecodable,
                           PullCredentials.HostsFiles hosts) {
    public HostSnapshot {
        Objects.requireNonNull(hosts, "hosts");
        tomlDocuments = List.copyOf(tomlDocuments);
        unreadableProcesses = List.copyOf(unreadableProcesses);
        undecodable = List.copyOf(undecodable);
    }
}
