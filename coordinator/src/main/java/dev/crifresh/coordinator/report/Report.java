package dev.crifresh.coordinator.report;

import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.gate.GateNote;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The run's report, the JSON of SCENARIOS.md:
 * <pre>
 * {"result": "succeeded|failed|planned|lease-lost",
 *  "cluster": {"server", "context", "source"},   (when run from the command line)
 *  "nodes": [{"name", "role", "verdict", "reason", "decision", "action", "outcome", "markerSaysCurrent",
 *             "markerContradicts", "detail"}],
 *  "summary": {"nodes", "fresh", "stale", "configPending", "unknown", "rebooted", "skipped", "failed"},
 *  "rebootOrder": ["node", ...],
 *  "staleTaint": {"key", "effect", "tainted": [...], "freshSchedulable": [...], "seed"},   (when nodes are rolled)
 *  "joinedDuringRun": ["node", ...],       (only when nodes joined)
 *  "gates": [{"gate", "node", "result", "detail"}],   (only when a gate had something to say)
 *  "warnings": ["...", ...],               (only when something that never stops a run went wrong, e.g. a silence)
 *  "error": "why the run failed"}          (only when result is failed or lease-lost)
 * </pre>
 * {@code action} ({@code reboot}, {@code wait-restart}, or null for a skipped node), {@code markerContradicts}, {@code detail}, {@code staleTaint}, {@code joinedDuringRun} and {@code error} are
 * additions to the scenario schema.
 *
 * @param rebootOrder node names in the order their reboots (with action none: their waits) began; for a
 *                    plan, the order a rollout would follow
 * @param stop        why the run ended; decides {@link #exitCode()}
 * @param error       one line naming what stopped the run, null when it did not fail
 * @param gates       what the rollout gates (pull proof, etcd, blockers) found, in order
 * @param cluster     the cluster the run talked to; null when the embedding did not say
 * @param warnings    what went wrong without stopping the run (an Alertmanager silence not created or expired)
 */
public record Report(Result result, List<NodeReport> nodes, Summary summary, List<String> rebootOrder, StopReason stop, String error,
                     EvictionPlacement placement, List<String> joinedDuringRun, List<GateNote> gates, ClusterRef cluster,
                     List<String> warnings) {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    public Report {
        nodes = List.copyOf(nodes);
        rebootOrder = List.copyOf(rebootOrder);
        joinedDuringRun = List.copyOf(joinedDuringRun);
        gates = gates == null ? List.of() : List.copyOf(gates);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    public static Report of(Result result, List<NodeReport> nodes, List<String> rebootOrder, StopReason stop, String error) {
        return new Report(result, nodes, Summary.of(nodes), rebootOrder, stop, error, null, List.of(), List.of(), null, List.of());
    }

    /** With where evicted pods were steered (the stale taint, fresh capacity, the seed). */
    public Report withPlacement(EvictionPlacement p) {
        return new Report(result, nodes, summary, rebootOrder, stop, error, p, joinedDuringRun, gates, cluster, warnings);
    }

    /** With the nodes that joined the cluster while the run was under way. */
    public Report withJoinedDuringRun(List<String> names) {
        return new Report(result, nodes, summary, rebootOrder, stop, error, placement, names, gates, cluster, warnings);
    }

    /** With what the rollout gates found. */
    public Report withGates(List<GateNote> notes) {
        return new Report(result, nodes, summary, rebootOrder, stop, error, placement, joinedDuringRun, notes, cluster, warnings);
    }

    /** With the cluster the run talked to (the command line names it; an embedding may not). */
    public Report withCluster(ClusterRef ref) {
        return new Report(result, nodes, summary, rebootOrder, stop, error, placement, joinedDuringRun, gates, ref, warnings);
    }

    /** With warnings that did not stop the run (an Alertmanager silence that could not be created or expired). */
    public Report withWarnings(List<String> more) {
        List<String> all = new ArrayList<>(warnings);
        all.addAll(more);
        return new Report(result, nodes, summary, rebootOrder, stop, error, placement, joinedDuringRun, gates, cluster, all);
    }

    /** 0 succeeded or planned, 1 a node failed, 3 timed out waiting, 4 lock not acquired or lost. */
    public int exitCode() {
        return stop.exitCode();
    }

    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("result", result.wire());
        if (cluster != null) {
            ObjectNode c = root.putObject("cluster");
            c.put("server", cluster.server());
            if (cluster.context() == null) {
                c.putNull("context");
            } else {
                c.put("context", cluster.context());
            }
            c.put("source", cluster.source());
        }
        ArrayNode list = root.putArray("nodes");
        nodes.forEach(n -> putNode(list.addObject(), n));
        putSummary(root.putObject("summary"));
        ArrayNode order = root.putArray("rebootOrder");
        rebootOrder.forEach(order::add);
        if (placement != null) {
            ObjectNode t = root.putObject("staleTaint");
            t.put("key", StaleTaint.KEY);
            t.put("effect", placement.taint().wire());
            placement.tainted().forEach(t.putArray("tainted")::add);
            placement.freshSchedulable().forEach(t.putArray("freshSchedulable")::add);
            if (placement.seed() == null) {
                t.putNull("seed");
            } else {
                t.put("seed", placement.seed());
            }
        }
        if (!joinedDuringRun.isEmpty()) {
            joinedDuringRun.forEach(root.putArray("joinedDuringRun")::add);
        }
        if (!gates.isEmpty()) {
            ArrayNode gateList = root.putArray("gates");
            for (GateNote g : gates) {
                ObjectNode o = gateList.addObject();
                o.put("gate", g.gate());
                if (g.node() != null) {
                    o.put("node", g.node());
                }
                o.put("result", g.result());
                o.put("detail", g.detail());
            }
        }
        if (!warnings.isEmpty()) {
            warnings.forEach(root.putArray("warnings")::add);
        }
        if (error != null) {
            root.put("error", error);
        }
        return JSON.writeValueAsString(root) + "\n";
    }

    private static void putNode(ObjectNode o, NodeReport n) {
        o.put("name", n.name());
        o.put("role", n.role().wire());
        o.put("verdict", n.verdict().wire());
        o.put("reason", n.reason());
        o.put("decision", n.decision().wire());
        if (n.action() == null) {
            o.putNull("action");
        } else {
            o.put("action", n.action());
        }
        o.put("outcome", n.outcome().wire());
        o.put("markerSaysCurrent", n.markerSaysCurrent());
        o.put("markerContradicts", n.markerContradicts());
        o.put("detail", n.detail());
    }

    private void putSummary(ObjectNode s) {
        s.put("nodes", summary.nodes());
        s.put("fresh", summary.fresh());
        s.put("stale", summary.stale());
        s.put("configPending", summary.configPending());
        s.put("unknown", summary.unknown());
        s.put("rebooted", summary.rebooted());
        s.put("skipped", summary.skipped());
        s.put("failed", summary.failed());
    }
}
