package dev.crifresh.mockapi;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's CRUD store (object key → JSON) with indexes, so a request does not scan every stored object.
 * fabric8 answers every get, list, patch and update by filtering <em>all</em> entries of its store with
 * {@code key.matches(query)}: one node's GET in a cluster of 1,000 nodes and 1,500 pods compares 2,500
 * attribute sets. Here the entries are also kept by resource ({@code plural}), by resource and name, and
 * pods by {@code spec.nodeName}; while a request is {@linkplain #scoped scoped}, {@link #entrySet()} returns
 * only the bucket its query can match. A bucket holds every entry that can match (an object of another
 * resource or name never matches the query), and fabric8 still filters it with its own {@code matches}, so
 * the answers are the same as from a full scan.
 *
 * <p>Access follows fabric8's locking (its read/write lock around every store access); the scope is per
 * thread.
 */
final class IndexedStore extends LinkedHashMap<AttributeSet, String> {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ThreadLocal<Scope> SCOPE = new ThreadLocal<>();

    /** What a request can match: a resource, optionally one name, optionally (pods) one node. */
    record Scope(String plural, String name, String node) {
        /** The scope of fabric8's query for a request path, or null when the query names no resource. */
        static Scope of(AttributeSet query, String node) {
            String plural = single(query, "plural");
            return plural == null ? null : new Scope(plural, single(query, "name"), node);
        }
    }

    private final Map<String, Map<AttributeSet, String>> byPlural = new HashMap<>();
    private final Map<String, Map<AttributeSet, String>> byName = new HashMap<>();
    private final Map<String, Map<AttributeSet, String>> podsByNode = new HashMap<>();
    private final Map<AttributeSet, String> nodeOfPod = new HashMap<>();

    /** Runs {@code work} (a fabric8 store call) with the store narrowed to {@code scope} (null: no narrowing). */
    static <T> T scoped(Scope scope, Supplier<T> work) {
        Scope before = SCOPE.get();
        SCOPE.set(scope);
        try {
            return work.get();
        } finally {
            if (before == null) {
                SCOPE.remove();
            } else {
                SCOPE.set(before);
            }
        }
    }

    @Override
    public String put(AttributeSet key, String value) {
        String plural = single(key, "plural");
        if (plural != null) {
            byPlural.computeIfAbsent(plural, k -> new LinkedHashMap<>()).put(key, value);
            String name = single(key, "name");
            if (name != null) {
                byName.computeIfAbsent(plural + "/" + name, k -> new LinkedHashMap<>()).put(key, value);
            }
            if ("pods".equals(plural)) {
                unindexPod(key);
                String node = nodeName(value);
                nodeOfPod.put(key, node);
                podsByNode.computeIfAbsent(node, k -> new LinkedHashMap<>()).put(key, value);
            }
        }
        return super.put(key, value);
    }

    @Override
    public void putAll(Map<? extends AttributeSet, ? extends String> entries) {
        entries.forEach(this::put);
    }

    @Override
    public String remove(Object key) {
        if (key instanceof AttributeSet k && containsKey(k)) {
            String plural = single(k, "plural");
            if (plural != null) {
                drop(byPlural, plural, k);
                String name = single(k, "name");
                if (name != null) {
                    drop(byName, plural + "/" + name, k);
                }
                unindexPod(k);
            }
        }
        return super.remove(key);
    }

    @Override
    public void clear() {
        byPlural.clear();
        byName.clear();
        podsByNode.clear();
        nodeOfPod.clear();
        super.clear();
    }

    /** Within a scope: only the entries its query can match (read-only); else every entry. */
    @Override
    public Set<Map.Entry<AttributeSet, String>> entrySet() {
        Scope scope = SCOPE.get();
        if (scope == null) {
            return super.entrySet();
        }
        Map<AttributeSet, String> bucket;
        if (scope.node() != null && "pods".equals(scope.plural())) {
            bucket = podsByNode.get(scope.node());
        } else if (scope.name() != null) {
            bucket = byName.get(scope.plural() + "/" + scope.name());
        } else {
            bucket = byPlural.get(scope.plural());
        }
        return bucket == null ? Set.of() : Collections.unmodifiableMap(bucket).entrySet();
    }

    /**
     * For a pod's event (its stored key before the change, its state after it; either may be null): the nodes it was
     * and is on ("" when unbound); null when the event is not about a pod.
     */
    Set<String> podNodes(AttributeSet before, GenericKubernetesResource after) {
        boolean pod = (before != null && "pods".equals(single(before, "plural")))
                || (after != null && "Pod".equals(after.getKind()));
        if (!pod) {
            return null;
        }
        Set<String> nodes = new HashSet<>();
        if (before != null && nodeOfPod.containsKey(before)) {
            nodes.add(nodeOfPod.get(before));
        }
        if (after != null) {
            Object node = after.get("spec", "nodeName");
            nodes.add(node == null ? "" : node.toString());
        }
        return nodes;
    }

    private void unindexPod(AttributeSet key) {
        if (nodeOfPod.containsKey(key)) {
            drop(podsByNode, nodeOfPod.remove(key), key);
        }
    }

    private static void drop(Map<String, Map<AttributeSet, String>> index, String at, AttributeSet key) {
        Map<AttributeSet, String> bucket = index.get(at);
        if (bucket != null) {
            bucket.remove(key);
            if (bucket.isEmpty()) {
                index.remove(at);
            }
        }
    }

    /** The pod's {@code spec.nodeName}; "" when unbound or unreadable (such a pod matches no node's scope). */
    private static String nodeName(String pod) {
        try {
            JsonNode node = JSON.readTree(pod).path("spec").path("nodeName");
            return node.isString() ? node.asString() : "";
        } catch (JacksonException e) {
            return "";
        }
    }

    /** The attribute's one value, or null when absent or not exactly one. */
    private static String single(AttributeSet set, String name) {
        Attribute a = set.getAttribute(name);
        return a == null || a.getValues().size() != 1 ? null : a.getValues().get(0).toString();
    }
}
