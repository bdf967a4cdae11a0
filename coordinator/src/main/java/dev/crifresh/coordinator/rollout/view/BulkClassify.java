package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Classifies many nodes off the event loop, in parallel chunks on worker threads (signature checks are CPU work). */
public final class BulkClassify {
    private static final int MIN_CHUNK = 128;

    private BulkClassify() {
    }

    public static Future<Map<String, Classification>> classifyAll(Context context, NodeClassifier classifier,
                                                                  List<NodeFacts> nodes, Instant now) {
        int cores = Runtime.getRuntime().availableProcessors();
        int chunks = Math.max(1, Math.min(cores, (nodes.size() + MIN_CHUNK - 1) / MIN_CHUNK));
        int size = (nodes.size() + chunks - 1) / Math.max(1, chunks);
        List<Future<List<Classification>>> parts = new ArrayList<>();
        for (int from = 0; from < nodes.size(); from += size) {
            List<NodeFacts> slice = nodes.subList(from, Math.min(nodes.size(), from + size));
            parts.add(context.executeBlocking(() -> slice.stream().map(n -> classifier.classify(n, now)).toList(), false));
        }
        return Future.all(parts).map(all -> {
            Map<String, Classification> out = new LinkedHashMap<>();
            for (Future<List<Classification>> part : parts) {
                for (Classification c : part.result()) {
                    out.put(c.name(), c);
                }
            }
            return out;
        });
    }
}
