package dev.crifresh.coordinator.placement;

import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.TaintPatches;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where pods evicted during the rollout may land (pure; shared by {@code plan} and {@code rollout}). Every
 * stale node to be rebooted is tainted ({@link StaleTaint}) before the first drain, so evicted pods go to
 * nodes whose containerd holds the current credential. When no such node can take pods — no selected
 * node that is fresh, Ready, schedulable and free of NoSchedule/NoExecute taints — one stale worker,
 * the one with the fewest pods to evict, is rolled first and alone: the <em>seed</em>, whose return makes
 * the first fresh capacity.
 *
 * @param taint            the taint's effect, or {@link StaleTaint#OFF}
 * @param tainted          the nodes that get the taint, in rollout order
 * @param freshSchedulable fresh nodes that can take evicted pods now
 * @param seed             the stale worker rolled first and alone, or null
 * @param seedPods         the seed's pods to evict when it was chosen (0 when there is no seed)
 */
public record EvictionPlacement(StaleTaint taint, List<String> tainted, List<String> freshSchedulable, String seed, int seedPods) {

    public EvictionPlacement {
        tainted = List.copyOf(tainted);
        freshSchedulable = List.copyOf(freshSchedulable);
    }

    /** No taint, no seed (action none, or the taint switched off). */
    public static EvictionPlacement off(List<String> freshSchedulable) {
        return new EvictionPlacement(StaleTaint.OFF, List.of(), freshSchedulable, null, 0);
    }

    /** Selected nodes that are fresh and can take evicted pods now. */
    public static List<String> freshSchedulable(Collection<Node> nodes, Set<String> fresh) {
        List<String> out = new ArrayList<>();
        for (Node node : nodes) {
            NodeFacts f = NodeFacts.of(node);
            if (fresh.contains(f.name()) && f.ready() && !f.unschedulable() && !blockingTaint(node)) {
                out.add(f.name());
            }
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    /** A taint that keeps ordinary pods off the node (crifresh's own taint aside). */
    static boolean blockingTaint(Node node) {
        for (Taint t : TaintPatches.taints(node)) {
            if (!StaleTaint.KEY.equals(t.getKey()) && ("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))) {
                return true;
            }
        }
        return false;
    }

    /** Of the stale workers to roll, the one with the fewest pods to evict (then by name); null when none. */
    public static String seed(List<NodeFacts> toRoll, Map<String, Integer> evictablePods) {
        return toRoll.stream()
                .filter(f -> f.role() == Role.WORKER)
                .min(Comparator.<NodeFacts>comparingInt(f -> evictablePods.getOrDefault(f.name(), Integer.MAX_VALUE))
                        .thenComparing(f -> f.unavailable() ? 0 : 1)
                        .thenComparing(NodeFacts::name))
                .map(NodeFacts::name)
                .orElse(null);
    }

    /** Whether a seed is needed: tainting is on, there is something to roll and no fresh capacity. */
    public static boolean needsSeed(StaleTaint taint, List<NodeFacts> toRoll, List<String> freshSchedulable) {
        return taint.enabled() && freshSchedulable.isEmpty() && toRoll.stream().anyMatch(f -> f.role() == Role.WORKER);
    }

    /** The rollout order with the seed moved to the front. */
    public List<String> order(List<String> order) {
        if (seed == null) {
            return order;
        }
        List<String> out = new ArrayList<>(order);
        out.remove(seed);
        out.add(0, seed);
        return out;
    }

    /** One line for the log and the text report. */
    public String describe() {
        if (!taint.enabled()) {
            return "stale nodes are not tainted (--stale-taint off)";
        }
        StringBuilder sb = new StringBuilder();
        sb.append(tainted.isEmpty() ? "no node to taint" : "tainting " + StaleTaint.KEY + ":" + taint.wire() + " on " + String.join(", ", tainted));
        sb.append("; fresh schedulable nodes for evicted pods: ").append(freshSchedulable.isEmpty() ? "none" : String.join(", ", freshSchedulable));
        if (seed != null) {
            sb.append("; ").append(seed).append(" (").append(seedPods).append(seedPods == 1 ? " pod" : " pods")
                    .append(" to evict) is rolled first and alone as the seed of fresh capacity");
        }
        return sb.toString();
    }
}
