package dev.crifresh.sim.run;

import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.gate.EtcdCheckMode;
import dev.crifresh.coordinator.gate.GateSettings;
import dev.crifresh.coordinator.gate.GateWiring;
import dev.crifresh.coordinator.gate.PullProofMode;
import dev.crifresh.coordinator.gate.etcd.TalosctlEtcdProbe;
import dev.crifresh.sim.world.SimulatedWorld;
import dev.crifresh.sim.scenario.GateSpec;
import java.util.regex.Pattern;
import dev.crifresh.sim.node.NodeObjects;
import dev.crifresh.sim.scenario.CoordinatorSpec;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioAction;
import java.time.Duration;

/** The coordinator's settings for a scenario: its coordinator block, and what the simulated cluster needs. */
public final class CoordinatorFlags {
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);

    private CoordinatorFlags() {
    }

    public static CoordinatorSettings settings(Scenario scenario) {
        CoordinatorSpec c = scenario.coordinator();
        return CoordinatorSettings.builder()
                .registry(scenario.registry())
                .maxUnavailable(c.maxUnavailable())
                .action(switch (c.action()) {
                    case NONE -> Action.NONE;
                    case AUTO -> Action.AUTO;
                    case REBOOT -> Action.REBOOT;
                })
                .configTimeout(c.configTimeout())
                .rebootTimeout(c.rebootTimeout())
                // A scenario's blocked run stops as it always did: after its reboot timeout.
                .stallTimeout(c.rebootTimeout())
                .attestTimeout(c.attestTimeout())
                .staleTaint(StaleTaint.fromWire(c.staleTaint().wire()))
                .drainTimeout(DRAIN_TIMEOUT)
                .lockTimeout(LOCK_TIMEOUT)
                .markerCurrentValue(NodeObjects.MARKER_CURRENT)
                .drain(new DrainRules(c.force(), c.deleteEmptyDirData(), null, null))
                // The simulated API server runs beside the simulated nodes, not on one of them: rebooting the only
                // control plane does not take it away as it would on hardware, which a budget tells the coordinator.
                .apiOutageBudget(c.rebootTimeout())
                .build();
    }

    /** Where the simulated cluster's probe pods go. */
    public static final String PROBE_NAMESPACE = "crifresh";
    /** How often the gates look again while they wait, in the simulation. */
    static final Duration GATE_POLL = Duration.ofMillis(200);

    /** The scenario's gates, wired to the simulated cluster: its Prometheus, its talosctl, its pods. */
    public static GateWiring gates(Scenario scenario, SimulatedWorld cluster) {
        GateSpec g = scenario.coordinator().gates();
        PullProofMode proof = PullProofMode.fromWire(g.pullProof());
        String image = g.pullProofImage() != null ? g.pullProofImage() : scenario.registry() + "/crifresh/pull-probe:1";
        GateSettings settings = GateSettings.off()
                .withPullProof(proof, proof == PullProofMode.OFF ? null : image)
                .withProbeNamespace(PROBE_NAMESPACE)
                .withPullProofTimeout(g.pullProofTimeout())
                .withEtcdCheck(EtcdCheckMode.fromWire(g.etcdCheck()))
                .withEtcdTimeout(scenario.coordinator().rebootTimeout(), GATE_POLL)
                .withBlockTimeout(g.blockTimeout(), GATE_POLL);
        return new GateWiring(settings, new TalosctlEtcdProbe("talosctl", null, cluster.talosctl()),
                g.blockOnAlert() == null ? null : cluster.prometheus().url(),
                g.blockOnAlert() == null ? null : Pattern.compile(g.blockOnAlert()),
                g.blockOnPodSelector());
    }

    public static RegistryAuth desired(Scenario scenario) {
        return new RegistryAuth(scenario.registry(), scenario.desiredCredential().username(),
                scenario.desiredCredential().password(), "");
    }

    /** An upper bound for a whole rollout of this scenario, so a hung run cannot hang the caller. */
    static Duration runBound(Scenario scenario) {
        CoordinatorSpec c = scenario.coordinator();
        Duration perNode = DRAIN_TIMEOUT.plus(c.rebootTimeout()).plus(c.attestTimeout())
                .plus(scenario.simulation().reboot()).plus(c.gates().blockTimeout()).plus(c.gates().pullProofTimeout())
                .plus(c.rebootTimeout());
        return c.configTimeout().plus(LOCK_TIMEOUT).plus(perNode.multipliedBy(2L * scenario.nodes().size()))
                .plusSeconds(60);
    }
}
