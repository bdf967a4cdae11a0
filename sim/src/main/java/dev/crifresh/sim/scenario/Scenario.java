package dev.crifresh.sim.scenario;

import java.util.List;

/**
 * A validated scenario file: the cluster as the deploy job finds it, and the coordinator's flags.
 *
 * @param revokedCredentials credentials the simulated registry rejects (every other credential pulls)
 * @param alerts             what the simulated Prometheus reports as firing
 */
public record Scenario(
        String registry,
        Credential desiredCredential,
        List<Credential> revokedCredentials,
        CoordinatorSpec coordinator,
        SimulationSpec simulation,
        List<AlertSpec> alerts,
        List<NodeSpec> nodes) {

    public Scenario {
        revokedCredentials = List.copyOf(revokedCredentials);
        alerts = List.copyOf(alerts);
        nodes = List.copyOf(nodes);
    }

    /** Whether the registry rejects this credential (a revoked token). */
    public boolean revoked(Credential credential) {
        return revokedCredentials.contains(credential);
    }

    public NodeSpec node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name));
    }
}
