package dev.crifresh.coordinator.rollout.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which queued rolls start now ({@link RollStarts#decide}), table-driven. A cluster is written as names: a name
 * starting {@code cp} is a control plane, {@code !} after it NotReady, {@code ~} cordoned, {@code -} before it
 * deleted (no longer in the cluster).
 */
class RollStartsTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("workers start in queue order within the budget", "w1 w2 w3 cp1", "w1 w2", "", null, 1,
                        "start w1", "w2 waits: max-unavailable budget of 1 is used by w1 (in progress)", true),
                Arguments.of("a control plane waits while workers are in flight", "w1 w2 cp1", "w1 w2 cp1", "", null, 2,
                        "start w1, start w2", "cp1 waits: workers go first", true),
                Arguments.of("a NotReady node uses the budget", "w1 w3! cp1", "w1", "", null, 1,
                        "", "w1 waits: max-unavailable budget of 1 is used by w3 (NotReady)", true),
                Arguments.of("a cordoned candidate already counts: it fits", "w1~ w2", "w1", "", null, 1,
                        "start w1", null, true),
                Arguments.of("control planes go one at a time", "w1 cp1 cp2", "cp1 cp2", "", null, 1,
                        "start cp1", null, true),
                Arguments.of("a control plane waits for the one in flight", "w1 cp1 cp2", "cp1", "cp2", null, 1,
                        "", "cp1 waits: control planes go one at a time, after cp2", true),
                Arguments.of("a control plane waits for a worker in flight", "w1 cp1", "cp1", "w1", null, 1,
                        "", "cp1 waits: workers go first", true),
                Arguments.of("a control plane waits while another is NotReady", "w1 cp1 cp2!", "cp1", "", null, 3,
                        "", "cp1 waits: control-plane node cp2 is not Ready", true),
                Arguments.of("a deleted queued node is dropped and frees its place", "-w1 w2", "w1 w2", "", null, 1,
                        "drop w1, start w2", null, true),
                Arguments.of("a deleted control plane is dropped after the workers start", "w1 -cp1", "w1 cp1", "", null, 1,
                        "start w1, drop cp1", null, true),
                Arguments.of("the seed starts alone", "w1 w2 w3", "w1 w2", "", "w2", 3,
                        "start w2", null, false),
                Arguments.of("nothing else starts while the seed is in flight", "w1 w2 w3", "w1", "w2", "w2", 3,
                        "", null, false),
                Arguments.of("the seed waits for the budget", "w1 w2 w3!", "w1 w2", "", "w2", 1,
                        "", "w2 (the seed) waits: max-unavailable budget of 1 is used by w3 (NotReady)", false),
                Arguments.of("a deleted seed holds nothing back", "w1 -w2", "w1 w2", "", "w2", 1,
                        "start w1, drop w2", null, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @SuppressWarnings("checkstyle:parameternumber") // one parameter per column of the case table above
    void decides(String name, String cluster, String queued, String flying, String seed, int budget, String moves,
                 String blocker, boolean seedOver) {
        Map<String, NodeFacts> nodes = new LinkedHashMap<>();
        for (String spec : cluster.split(" ")) {
            if (!spec.startsWith("-")) {
                NodeFacts f = facts(spec);
                nodes.put(f.name(), f);
            }
        }
        Function<String, NodeFacts> latest = nodes::get;
        List<RollStarts.Slot> queue = names(queued).stream().map(n -> new RollStarts.Slot(n, role(n))).toList();
        Map<String, Role> inFlight = new LinkedHashMap<>();
        names(flying).forEach(n -> inFlight.put(n, role(n)));

        RollStarts starts = RollStarts.decide(queue, inFlight, seed, latest, List.copyOf(nodes.values()), budget);

        assertEquals(moves, starts.moves().stream().map(m -> m.kind().name().toLowerCase() + " " + m.node())
                .collect(Collectors.joining(", ")));
        assertEquals(blocker, starts.blocker());
        assertEquals(seedOver, starts.seedOver());
    }

    private static List<String> names(String s) {
        return s.isEmpty() ? List.of() : Arrays.asList(s.split(" "));
    }

    private static Role role(String name) {
        return name.startsWith("cp") ? Role.CONTROL_PLANE : Role.WORKER;
    }

    private static NodeFacts facts(String spec) {
        String name = spec.replaceAll("[!~]", "");
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(role(name) == Role.CONTROL_PLANE ? Map.of(Role.CONTROL_PLANE_LABEL, "") : Map.of()).endMetadata()
                .withNewSpec().withUnschedulable(spec.contains("~")).endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus(spec.contains("!") ? "False" : "True").endCondition()
                .endStatus();
        return NodeFacts.of(b.build());
    }
}
