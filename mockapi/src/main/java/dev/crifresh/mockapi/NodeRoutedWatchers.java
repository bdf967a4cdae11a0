package dev.crifresh.mockapi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;

/**
 * fabric8's set of open watches, with the pod watches selected by node ({@link PodNodeSelector}) routed: while the
 * store sends a pod's event ({@link #routing}), a watch of another node is skipped before fabric8 builds and queues
 * the event for it. fabric8 sends every pod event to every pod watch (it cannot evaluate {@code spec.nodeName}), and
 * {@link PodNodeSelector}'s filter then drops it: with a drain watching each of 250 nodes, one pod event cost 250
 * event texts. The routing passes every watch of the nodes the pod was and is on, a superset of what the filter
 * keeps, so the filter still decides exactly what a watch sees.
 */
final class NodeRoutedWatchers extends CopyOnWriteArraySet<Object> {
    private static final ThreadLocal<Set<String>> EVENT_NODES = new ThreadLocal<>();
    private final Map<Object, String> nodeOf = new ConcurrentHashMap<>();

    /** The watch sees only pods of {@code node} (it is filtered by {@link PodNodeSelector} as well). */
    void route(Object watch, String node) {
        nodeOf.put(watch, node);
    }

    /** Runs {@code send} (the store's event processing) delivering to node-selected watches of {@code nodes} only. */
    static void routing(Set<String> nodes, Runnable send) {
        EVENT_NODES.set(nodes);
        try {
            send.run();
        } finally {
            EVENT_NODES.remove();
        }
    }

    @Override
    public void forEach(Consumer<? super Object> action) {
        Set<String> nodes = EVENT_NODES.get();
        if (nodes == null) {
            super.forEach(action);
            return;
        }
        super.forEach(watch -> {
            String node = nodeOf.get(watch);
            if (node == null || nodes.contains(node)) {
                action.accept(watch);
            }
        });
    }

    @Override
    public boolean remove(Object watch) {
        nodeOf.remove(watch);
        return super.remove(watch);
    }

    @Override
    public void clear() {
        nodeOf.clear();
        super.clear();
    }
}
