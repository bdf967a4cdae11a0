package dev.crifresh.coordinator.reliability;

import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Report;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the fault cases read back from the mock API and the report, in words for the summary table. */
final class ApiState {
    private ApiState() {
    }

    static Map<String, String> annotations(Harness h, String node) {
        Node n = h.cluster.node(node);
        return n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
    }

    static boolean cordoned(Harness h, String node) {
        return Boolean.TRUE.equals(h.cluster.node(node).getSpec().getUnschedulable());
    }

    /** The phase in {@code crifresh.dev/rollout}, or null when the node is not owned. */
    static String phase(Harness h, String node) {
        String v = annotations(h, node).get(CrifreshAnnotations.ROLLOUT);
        return v == null ? null : v.substring(v.lastIndexOf('/') + 1);
    }

    /** Nodes that still carry any crifresh annotation. */
    static List<String> owned(Harness h) {
        List<String> out = new ArrayList<>();
        for (Node n : h.cluster.nodes()) {
            Map<String, String> ann = n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
            // The mock keeps a key deleted by a merge patch with a null value; kube-apiserver drops it.
            List<String> ours = ann.keySet().stream().filter(k -> k.startsWith("crifresh.dev/") && ann.get(k) != null)
                    .sorted().toList();
            if (!ours.isEmpty()) {
                out.add(n.getMetadata().getName() + ours);
            }
        }
        return out;
    }

    /** Every node's cordon, by name. */
    static Map<String, Boolean> cordons(Harness h) {
        Map<String, Boolean> out = new TreeMap<>();
        for (Node n : h.cluster.nodes()) {
            out.put(n.getMetadata().getName(), Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
        }
        return out;
    }

    /** "w1 rebooted, w2 not-attempted" from the report, in node order. */
    static String outcomes(Report r) {
        List<String> parts = new ArrayList<>();
        for (NodeReport n : r.nodes()) {
            parts.add(n.name() + " " + n.outcome().name().toLowerCase().replace('_', '-'));
        }
        return String.join(", ", parts);
    }
}
