package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.crifresh.coordinator.base.NodeTimeouts;
import dev.crifresh.coordinator.classify.AttestationCondition;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.*;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The node w1 and the states a roll passes through, shared by the tests of {@link NodeStep}. */
final class NodeStepFixture {
    static final String RUN = "run-1";
    static final Duration REBOOT = Duration.ofSeconds(60);
    static final Duration ATTEST = Duration.ofSeconds(90);
    /** How long a drained node may wait to be let reboot: other than REBOOT, so that a test tells them apart. */
    static final Duration STALL = Duration.ofSeconds(45);
    static final String OURS = RUN + "/draining";

    private NodeStepFixture() {
    }

    static Node node(String boot, boolean ready, boolean cordoned, String... annotations) {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i < annotations.length; i += 2) {
            a.put(annotations[i], annotations[i + 1]);
        }
        return new NodeBuilder().withNewMetadata().withName("w1").withUid("uid-1").withResourceVersion("7").withAnnotations(a)
                .endMetadata().withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus().withNewNodeInfo().withBootID(boot).endNodeInfo()
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress().endStatus().build();
    }

    static NodeFacts facts(String boot, boolean ready, boolean cordoned, String... annotations) {
        return NodeFacts.of(node(boot, ready, cordoned, annotations));
    }

    static NodeFacts attested(String boot, String message) {
        NodeFacts f = facts(boot, true, true, CrifreshAnnotations.ROLLOUT, RUN + "/verifying");
        return new NodeFacts(f.name(), f.uid(), f.resourceVersion(), f.role(), f.bootId(), f.ready(), f.unschedulable(),
                f.internalIps(), f.annotations(), new AttestationCondition("True", "Fresh", message), f.osImage(), f.kubelet(), f.taintKeys());
    }

    static Classification classified(NodeFacts f, NodeVerdict v) {
        return new Classification(f, v, "Because", "the detail", false, null);
    }

    static RollFacts roll(Ownership resumeFrom) {
        return RollFacts.of("w1", RUN, resumeFrom, new NodeTimeouts(Duration.ofMinutes(5), Duration.ofMinutes(10), REBOOT, ATTEST, STALL));
    }

    static NodeStep.Step run(NodeState s, NodeInput... inputs) {
        NodeStep.Step step = new NodeStep.Step(s, List.of());
        for (NodeInput in : inputs) {
            step = NodeStep.next(step.state(), in);
        }
        return step;
    }

    /** A roll that owns and cordoned the node, drained. */
    static NodeState drained() {
        return run(NodeStep.start(roll(null)), new Start(facts("boot-1", true, false)), new GateAnswered(GateVerdict.passed(""), null, false),
                new Patched(node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, OURS, CrifreshAnnotations.CORDONED, "true"), false),
                new Drained()).state();
    }

    static Read read(Node n, long now) {
        return new Read(n, List.of(NodeFacts.of(n)), Set.of("w1"), 1, 0, now);
    }

    static Node ownedNode() {
        return node("boot-1", true, true, CrifreshAnnotations.ROLLOUT, OURS, CrifreshAnnotations.CORDONED, "true");
    }

    /** Recorded and requested: waiting for the return. */
    static NodeState returning() {
        Node n = ownedNode();
        return run(drained(), read(n, 0), new Recorded(n, "boot-1", 0, false), new Confirmed(0), new DriverAnswered(null)).state();
    }

    static NodeState attesting() {
        return run(returning(), new NodeUpdated(facts("boot-2", true, true, CrifreshAnnotations.ROLLOUT, RUN + "/rebooting")),
                new Patched(node("boot-2", true, true), false)).state();
    }

    static NodeEnd end(NodeStep.Step step) {
        return assertInstanceOf(Done.class, step.state()).end();
    }

    static <T extends NodeEffect> boolean has(NodeStep.Step step, Class<T> kind) {
        return step.effects().stream().anyMatch(kind::isInstance);
    }

    static List<EventReason> events(NodeStep.Step step) {
        return step.effects().stream().filter(NodeEffect.Event.class::isInstance).map(e -> ((NodeEffect.Event) e).reason()).toList();
    }
}
