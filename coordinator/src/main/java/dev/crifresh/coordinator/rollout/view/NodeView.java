package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.classify.NodeFacts;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The run's view of the nodes: the selected ones in their latest state (informer events and the answers of this
 * run's own patches) and, with a node selector, every node of the cluster for the safety checks. Used on the run's
 * context only.
 */
public final class NodeView {
    private final Map<String, Node> raw = new HashMap<>();
    /** Sorted by name, so {@link #safetyView} is a copy, not a sort (it is read at every start of a roll and every gate). */
    private final TreeMap<String, NodeFacts> facts = new TreeMap<>();
    /** With a node selector: every node of the cluster, selected or not (facts holds the selected ones' latest). */
    private final TreeMap<String, NodeFacts> cluster = new TreeMap<>();

    /** A selected node's latest state; true when its readiness or schedulability changed (or it is new). */
    public boolean remember(Node node) {
        String name = node.getMetadata().getName();
        NodeFacts before = facts.get(name);
        raw.put(name, node);
        NodeFacts after = NodeFacts.of(node);
        facts.put(name, after);
        return availabilityChanged(before, after);
    }

    /**
     * A node a patch of this run returned. A patch's answer can arrive after the informer delivered a newer state
     * (the agent's attestation from the new boot, say); taking it would roll the view back, and no later event would
     * bring it forward: an older one is ignored.
     */
    public void patched(Node node) {
        Node known = raw.get(node.getMetadata().getName());
        if (known != null && ResourceVersions.older(node.getMetadata().getResourceVersion(), known.getMetadata().getResourceVersion())) {
            return;
        }
        remember(node);
    }

    /** A selected node was deleted. */
    public void forget(String name) {
        raw.remove(name);
        facts.remove(name);
    }

    /** Any node of the cluster (the cluster-wide informer); true when its availability changed (or it is new). */
    boolean rememberInCluster(Node node) {
        NodeFacts after = NodeFacts.of(node);
        return availabilityChanged(cluster.put(after.name(), after), after);
    }

    /** A node of the cluster was deleted; true when it was known. */
    boolean forgetInCluster(String name) {
        return cluster.remove(name) != null;
    }

    private static boolean availabilityChanged(NodeFacts before, NodeFacts after) {
        return before == null || before.ready() != after.ready() || before.unschedulable() != after.unschedulable();
    }

    /** The node's latest state; null when unknown or deleted. */
    public NodeFacts facts(String name) {
        return facts.get(name);
    }

    public Node raw(String name) {
        return raw.get(name);
    }

    public boolean has(String name) {
        return facts.containsKey(name);
    }

    /** Every selected node as last seen. */
    public Collection<Node> nodes() {
        return new ArrayList<>(raw.values());
    }

    /** The named nodes as last seen (the deleted ones left out). */
    public List<Node> nodes(Collection<String> names) {
        return names.stream().map(raw::get).filter(n -> n != null).toList();
    }

    /** What the safety checks look at: every node of the cluster, the selected ones in their latest state. */
    public List<NodeFacts> safetyView() {
        if (cluster.isEmpty()) {
            return new ArrayList<>(facts.values());
        }
        Map<String, NodeFacts> all = new TreeMap<>(cluster);
        all.putAll(facts);
        return new ArrayList<>(all.values());
    }
}
