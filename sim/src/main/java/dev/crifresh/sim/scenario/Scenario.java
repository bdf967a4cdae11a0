package dev.crifresh.sim.scenario;

import java.util.List;

/** A validated scenario file: the cluster as the deploy job finds it, and the coordinator's flags. */
public record Scenario(
        String registry,
        Credential desiredCredential,
        CoordinatorSpec coordinator,
        SimulationSpec simulation,
        List<NodeSpec> nodes) {

    public Scenario {
        nodes = List.copyOf(nodes);
    }

    public NodeSpec node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name));
    }
}
