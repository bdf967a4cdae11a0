package dev.crifresh.sim.e2e;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.run.SimulationRun;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioReader;
import dev.crifresh.sim.world.RebootRequest;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.world.SimulatedWorld;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** Runs a scenario end to end and keeps what the tests look at after the cluster is gone. */
final class Runs {
    private Runs() {
    }

    /**
     * What a node looked like when the run ended.
     *
     * @param attestation the node's condition verified against the run's trust bundle, now
     */
    record NodeEnd(int boots, String bootId, long criPid, boolean cordoned, Map<String, String> annotations,
            String conditionStatus, VerificationResult attestation, int podsLeft) {
    }

    record Finished(Report report, List<RebootRequest> reboots, List<SimEvent> events, Map<String, NodeEnd> nodes,
            List<String> progress) {

        NodeReport node(String name) {
            return report.nodes().stream().filter(n -> n.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no node " + name + " in the report"));
        }

        List<String> rebootRequested() {
            return reboots.stream().map(RebootRequest::node).toList();
        }
    }

    static String example(String name) throws IOException {
        try (InputStream in = Runs.class.getResourceAsStream("/scenarios/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static Finished rollout(String yaml) throws Exception {
        return run(yaml, false, SimulationRun.Agents.REAL);
    }

    static Finished plan(String yaml) throws Exception {
        return run(yaml, true, SimulationRun.Agents.REAL);
    }

    static Finished run(String yaml, boolean plan, SimulationRun.Agents agents) throws Exception {
        Scenario scenario = ScenarioReader.parse(yaml);
        List<String> progress = new CopyOnWriteArrayList<>();
        try (SimulationRun run = SimulationRun.prepare(scenario, e -> { }, agents)) {
            Report report = plan ? run.plan(progress::add) : run.rollout(progress::add);
            SimulatedWorld cluster = run.cluster();
            if (!plan) {
                // Replacements of the last evicted pods may still be starting: let their pulls land in the events.
                cluster.awaitPodsSettled(java.time.Duration.ofSeconds(5));
            }
            return new Finished(report, cluster.rebootRequests(), cluster.events(), ends(cluster),
                    List.copyOf(progress));
        }
    }

    private static Map<String, NodeEnd> ends(SimulatedWorld cluster) {
        AttestationVerifier verifier = new AttestationVerifier(cluster.keys().trust(), AttestationVerifier.DEFAULT_SKEW);
        Map<String, NodeEnd> ends = new LinkedHashMap<>();
        for (SimulatedNode node : cluster.nodes()) {
            Node object = cluster.client().nodes().withName(node.name()).get();
            NodeCondition condition = cluster.condition(node.name()).orElse(null);
            String token = condition == null ? null : AttestationMessage.token(condition.getMessage()).orElse(null);
            VerificationResult verified = verifier.verify(token, new ExpectedNode(node.name(), node.uid(),
                    object.getStatus().getNodeInfo().getBootID(), condition == null ? null : condition.getStatus()),
                    Instant.now());
            long pods = cluster.client().pods().inAnyNamespace().list().getItems().stream()
                    .filter(p -> node.name().equals(p.getSpec().getNodeName())).count();
            ends.put(node.name(), new NodeEnd(node.boots(), node.boot().bootId(), node.boot().criPid(),
                    Boolean.TRUE.equals(object.getSpec().getUnschedulable()),
                    annotations(object),
                    condition == null ? null : condition.getStatus(), verified, (int) pods));
        }
        return ends;
    }

    /** A JSON merge patch that removes an annotation may leave it with a null value in the mock server. */
    private static Map<String, String> annotations(Node node) {
        Map<String, String> present = new HashMap<>();
        if (node.getMetadata().getAnnotations() != null) {
            node.getMetadata().getAnnotations().forEach((k, v) -> {
                if (v != null) {
                    present.put(k, v);
                }
            });
        }
        return present;
    }
}
