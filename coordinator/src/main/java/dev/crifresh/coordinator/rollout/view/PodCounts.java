package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.plan.DrainSelection;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** How many pods a drain would evict from each node (not DaemonSet, mirror or terminating pods). */
public final class PodCounts {
    private PodCounts() {
    }

    /** A node whose pods cannot be listed is left out of the map. */
    public static Future<Map<String, Integer>> evictable(PodOps pods, List<NodeFacts> nodes) {
        Map<String, Integer> counts = new TreeMap<>();
        List<Future<Void>> all = new ArrayList<>();
        for (NodeFacts f : nodes) {
            all.add(pods.podsOn(f.name()).map(list -> {
                counts.put(f.name(), (int) list.stream()
                        .filter(p -> !DrainSelection.neverEvicted(p) && !DrainSelection.terminating(p)).count());
                return null;
            }));
        }
        return Future.join(all).otherwiseEmpty().map(v -> counts);
    }
}
