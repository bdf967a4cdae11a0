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
 *
 * @param torn the watched files that kept changing while read ({@link ConfigFileReader.FileRead#torn()}): unreadable
 *             in this snapshot, worth reading again a little later
 */
public record HostSnapshot(Observation observation, List<ConfigDocument> tomlDocuments,
                           List<String> unreadableProcesses, List<String> undecodable,
                           PullCredentials.HostsFiles hosts, List<String> torn) {
    public HostSnapshot {
        Objects.requireNonNull(hosts, "hosts");
        torn = List.copyOf(torn);
        tomlDocuments = List.copyOf(tomlDocuments);
        unreadableProcesses = List.copyOf(unreadableProcesses);
        undecodable = List.copyOf(undecodable);
    }
}
