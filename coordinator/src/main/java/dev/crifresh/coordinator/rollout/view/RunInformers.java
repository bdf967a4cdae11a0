package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.NodeOps;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The run's informers and its classification of what they see (on worker threads, {@link BulkClassify}):
 * <ol>
 *   <li>with a node selector, an informer on every node first (the safety checks must see nodes it leaves out);</li>
 *   <li>the informer on the selected nodes, its first list put into the {@link NodeView};</li>
 *   <li>every selected node classified, the results remembered by the {@link ClassificationCache}.</li>
 * </ol>
 * Called on the run's context.
 */
public final class RunInformers {
    private final Context context;
    private final NodeClassifier classifier;
    private final Clock clock;
    private final ClassificationCache cache;
    private final NodeOps nodes;
    private final NodeView view;
    private final boolean selector;
    private final BooleanSupplier done;
    private NodeOps.NodeWatch watch;
    private NodeOps.NodeWatch clusterWatch;

    /**
     * @param selector whether a node selector leaves nodes out (then every node is watched too)
     * @param done     whether the run ended: an informer that starts after it is closed at once
     */
    public RunInformers(Context context, NodeClassifier classifier, Clock clock, ClassificationCache cache, NodeOps nodes, NodeView view,
                 boolean selector, BooleanSupplier done) {
        this.context = context;
        this.classifier = classifier;
        this.clock = clock;
        this.cache = cache;
        this.nodes = nodes;
        this.view = view;
        this.selector = selector;
        this.done = done;
    }

    /**
     * Starts the informers and classifies every selected node.
     *
     * @param events    the selected nodes' events
     * @param available a node of the cluster changed its availability (or came, or went)
     */
    public Future<Map<String, Classification>> start(NodeOps.NodeEvents events, Runnable available) {
        return watchCluster(available).compose(v -> nodes.watch(events)).compose(w -> {
            watch = w;
            if (done.getAsBoolean()) {
                w.close();
                return Future.failedFuture("interrupted");
            }
            List<Node> snapshot = w.snapshot();
            snapshot.forEach(view::remember);
            Instant now = clock.instant();
            return BulkClassify.classifyAll(context, classifier, snapshot.stream().map(NodeFacts::of).toList(), now)
                    .onSuccess(map -> map.values().forEach(c -> cache.remember(c, now)));
        });
    }

    private Future<Void> watchCluster(Runnable available) {
        if (!selector) {
            return Future.succeededFuture();
        }
        return nodes.watchAll(new NodeOps.NodeEvents() {
            @Override
            public void upsert(Node node) {
                if (!done.getAsBoolean() && view.rememberInCluster(node)) {
                    available.run();
                }
            }

            @Override
            public void deleted(String name) {
                if (!done.getAsBoolean() && view.forgetInCluster(name)) {
                    available.run();
                }
            }
        }).map(w -> {
            clusterWatch = w;
            if (done.getAsBoolean()) {
                w.close();
            } else {
                w.snapshot().forEach(view::rememberInCluster);
            }
            return null;
        });
    }

    /**
     * Classifies the named nodes' latest state: a node whose classification inputs did not change since it was last
     * classified keeps its verdict ({@link ClassificationCache}), the others are classified off the event loop and
     * fill the cache. At the start of a run every node was classified moments before: checking them all again (a
     * signature check each, ~0.5 ms) doubled the start on a large cluster.
     */
    public Future<Map<String, Classification>> classifyLatest(Collection<String> names) {
        Instant now = clock.instant();
        Map<String, Classification> known = new HashMap<>();
        List<NodeFacts> changed = new ArrayList<>();
        for (String name : names) {
            NodeFacts f = view.facts(name);
            Classification c = f == null ? null : cache.cached(f, now);
            if (c != null) {
                known.put(name, c);
            } else if (f != null) {
                changed.add(f);
            }
        }
        return BulkClassify.classifyAll(context, classifier, changed, now).map(classified -> {
            if (!done.getAsBoolean()) {
                classified.values().forEach(c -> cache.remember(c, now));
            }
            Map<String, Classification> out = new LinkedHashMap<>();
            for (String name : names) {
                Classification c = known.containsKey(name) ? known.get(name) : classified.get(name);
                if (c != null) {
                    out.put(name, c);
                }
            }
            return out;
        });
    }

    /** Classifies the node's latest state now, on the event loop (through the cache). */
    public Classification classifyNow(String name) {
        return cache.classify(view.facts(name), clock.instant());
    }

    /** One list of the selected nodes, classified (for the report of a run that never got the Lease). */
    public Future<Map<String, Classification>> listAndClassify() {
        return nodes.list().compose(list -> {
            list.forEach(view::remember);
            return BulkClassify.classifyAll(context, classifier, list.stream().map(NodeFacts::of).toList(), clock.instant());
        });
    }

    public void close() {
        if (watch != null) {
            watch.close();
        }
        if (clusterWatch != null) {
            clusterWatch.close();
        }
        watch = null;
        clusterWatch = null;
    }
}
