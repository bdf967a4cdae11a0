package dev.crifresh.mockapi;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.concurrent.RejectedExecutionException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * fabric8's mixed dispatcher (expectations first, then the CRUD store) with three gaps of fabric8 8.0.0's
 * mock closed, so it answers like kube-apiserver where crifresh depends on it:
 *
 * <ul>
 *   <li><b>Watch closes never stall the server.</b> When a client closes a watch, the mock's watch
 *   listener shuts its event sender down and waits for it — on the server's event loop. If the sender is
 *   at that moment writing an event to that watch, the write waits for the very same event loop, and the
 *   whole API server stalls for 30 s. Here the listener's close and failure handling run on their own
 *   thread, after the listener was taken out of the store's watcher set under the store's write lock, so
 *   no request can route an event to a sender that is shutting down. Both are private fields of
 *   {@link KubernetesCrudDispatcher}, reached by reflection; if a fabric8 upgrade renames them,
 *   construction fails loudly.</li>
 *   <li><b>Pod watches are selected by {@code spec.nodeName}</b> ({@link PodNodeSelector}; lists by
 *   {@link FieldSelector}): the mock evaluates only {@code metadata.name} and {@code metadata.namespace}
 *   field selectors and answers any other with nothing at all, which would make a drain believe a node
 *   has no pods.</li>
 *   <li><b>A failed JSON Patch {@code test} operation is answered 422</b> with a Status, as kube-apiserver
 *   does; the mock throws inside its handler and never answers, so the client would time out.</li>
 * </ul>
 */
public final class MockApiDispatcher extends Dispatcher {
    private static final ObjectMapper LIST_JSON = JsonMapper.builder().build();
    private final Map<ServerRequest, Queue<ServerResponse>> responses;
    private final MockDispatcher expectations;
    private final KubernetesCrudDispatcher crud;
    private final ExecutorService closer = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "mock-api-watch-close");
        t.setDaemon(true);
        return t;
    });

    private final Set<?> watchers;
    private NodeRoutedWatchers routed;
    private final ReadWriteLock storeLock;

    public MockApiDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
        this.responses = responses;
        this.expectations = new MockDispatcher(responses);
        this.crud = new KubernetesCrudDispatcher() {
            @Override
            public MockResponse handleWatch(String path) {
                PodNodeSelector selector = PodNodeSelector.of(path);
                String stripped = selector == null ? path : selector.stripped();
                IndexedStore.Scope scope = scope(this, stripped, selector == null ? null : selector.node());
                MockResponse response = IndexedStore.scoped(scope, () -> super.handleWatch(stripped));
                WebSocketListener listener = response.getWebSocketListener();
                if (listener == null) {
                    return response;
                }
                if (selector != null) {
                    routed.route(listener, selector.node());
                }
                // CloseOffLoop must wrap the store's own listener: it takes exactly that one out of the store.
                WebSocketListener closeOffLoop = new CloseOffLoop(listener);
                WebSocketListener filtered = selector == null ? closeOffLoop : selector.filterWatch(closeOffLoop);
                return response.withWebSocketUpgrade(new ForwardingWebSocketListener(filtered) {
                    @Override
                    public void onOpen(WebSocket webSocket, Response open) {
                        // the store sends the watch its initial objects from a scan of everything it holds: only the
                        // watched resource's (a node-selected pod watch: that node's pods) can match
                        IndexedStore.scoped(scope, () -> {
                            delegate.onOpen(webSocket, open);
                            return null;
                        });
                    }
                });
            }

            @Override
            public void processEvent(String path, AttributeSet loggedOn, AttributeSet currentOrOld,
                    GenericKubernetesResource resource, String newState) {
                Set<String> nodes = store().podNodes(currentOrOld, resource);
                if (nodes == null) {
                    super.processEvent(path, loggedOn, currentOrOld, resource, newState);
                } else {
                    NodeRoutedWatchers.routing(nodes, () -> super.processEvent(path, loggedOn, currentOrOld, resource, newState));
                }
            }

            @Override
            public MockResponse handleDelete(String path) {
                return IndexedStore.scoped(scope(this, path, null), () -> super.handleDelete(path));
            }

            @Override
            public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
                return IndexedStore.scoped(IndexedStore.Scope.of(query, null), () -> super.findResource(query));
            }
        };
        replaceStore(crud);
        this.routed = new NodeRoutedWatchers();
        replaceField(KubernetesCrudDispatcher.class, "watchEventListeners", routed);
        this.watchers = field(crud, "watchEventListeners", Set.class);
        this.storeLock = field(crud, "lock", ReadWriteLock.class);
    }

    /** fabric8's store, still empty, becomes an {@link IndexedStore}. */
    private void replaceStore(KubernetesCrudDispatcher crud) {
        IndexedStore store = new IndexedStore();
        store.putAll(crud.getMap());
        replaceField(CrudDispatcher.class, "map", store);
        if (!(crud.getMap() instanceof IndexedStore)) {
            throw new IllegalStateException("fabric8's mock server changed: its store could not be replaced; revisit MockApiDispatcher");
        }
    }

    private IndexedStore store() {
        return (IndexedStore) crud.getMap();
    }

    /** Sets one of the store's final fields (still empty at construction) by reflection; fails loudly if fabric8 changed. */
    private void replaceField(Class<?> owner, String name, Object value) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            field.set(crud, value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("fabric8's mock server changed: no field '" + name + "' in "
                    + owner.getSimpleName() + "; revisit MockApiDispatcher", e);
        }
    }

    /** What a request on {@code path} can match in the store (see {@link IndexedStore}). */
    private static IndexedStore.Scope scope(KubernetesCrudDispatcher crud, String path, String node) {
        return IndexedStore.Scope.of(crud.getKey(path), node);
    }

    private static <T> T field(KubernetesCrudDispatcher crud, String name, Class<T> type) {
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField(name);
            field.setAccessible(true);
            return type.cast(field.get(crud));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("fabric8's mock server changed: no " + type.getSimpleName() + " field '"
                    + name + "' in KubernetesCrudDispatcher; revisit MockApiDispatcher", e);
        }
    }

    /** Runs a listener's teardown off the event loop, after no request can route events to it any more. */
    private void tearDown(WebSocketListener listener, Runnable teardown) {
        try {
            closer.execute(() -> {
                Lock write = storeLock.writeLock();
                write.lock();
                try {
                    watchers.remove(listener);
                } finally {
                    write.unlock();
                }
                try {
                    teardown.run();
                } catch (RejectedExecutionException stopped) {
                    // The server's Vert.x stopped while this watch was closing: its connection went with it.
                }
            });
        } catch (RejectedExecutionException shutDown) {
            // The server is shut down (a client closed its watch late): no request routes events to it any more.
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Queue<ServerResponse> expected = responses.get(
                new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
        if (expected != null && !expected.isEmpty()) {
            return expectations.dispatch(request);
        }
        String target = request.getPath() == null ? "/" : request.getPath();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        if ("GET".equals(request.getMethod()) && !isWatch(path, query)) {
            Optional<String> discovery = Discovery.document(path, host(request));
            if (discovery.isPresent()) {
                return json(200, discovery.get());
            }
            return read(request, path, query);
        }
        return crudDispatch(request);
    }

    private MockResponse crudDispatch(RecordedRequest request) {
        try {
            MockResponse response = crud.dispatch(request);
            if (response != null && response.getWebSocketListener() == null && response.header("Content-Type") == null) {
                // kube-apiserver always names the type; without it, a client that offers protobuf first
                // (kubectl describe) tries to decode the JSON as protobuf
                response.setHeader("Content-Type", "application/json");
            }
            return response;
        } catch (JsonPatchException e) {
            return unprocessable(e.getMessage() == null ? "json patch failed" : e.getMessage());
        }
    }

    /** A get or list, with kube-apiserver's field selectors and, when asked for, Table output. */
    private MockResponse read(RecordedRequest request, String path, String query) {
        FieldSelector selector;
        try {
            selector = FieldSelector.fromQuery(query);
        } catch (IllegalArgumentException e) {
            return status(400, "BadRequest", e.getMessage());
        }
        RecordedRequest forward = request;
        if (selector != null) {
            String rest = FieldSelector.QueryString.without(query, "fieldSelector");
            forward = new RecordedRequest(request.getHttpVersion(), request.method(),
                    rest == null ? path : path + "?" + rest, request.getHeaders(), request.getBody());
        }
        RecordedRequest scoped = forward;
        String node = selector == null ? null : selector.equalTo("spec.nodeName");
        MockResponse response = IndexedStore.scoped(scope(crud, scoped.getPath(), node), () -> crudDispatch(scoped));
        boolean table = TableView.wanted(request.getHeader("Accept"));
        if (response.code() != 200 || response.getBody() == null) {
            return response;
        }
        String body = new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
        body = filterAndSort(body, selector, path);
        if (table) {
            String rendered = TableView.of(body, Instant.now());
            if (rendered != null) {
                body = rendered;
            }
        }
        return response.setBody(body).setHeader("Content-Type", "application/json");
    }

    /**
     * A list's items that match the field selector (if any), ordered by namespace and name as etcd's key
     * order gives them on kube-apiserver (the mock lists in hash order). Anything but a list is returned as is.
     */
    private static String filterAndSort(String listBody, FieldSelector selector, String path) {
        if (!listBody.contains("\"items\"")) {
            return listBody;
        }
        try {
            JsonNode root = LIST_JSON.readTree(listBody);
            JsonNode items = root == null ? null : root.get("items");
            if (items == null || !items.isArray()) {
                return listBody;
            }
            List<JsonNode> kept = new ArrayList<>();
            items.forEach(item -> {
                if (selector == null || selector.matches(item)) {
                    kept.add(item);
                }
            });
            kept.sort(Comparator.comparing((JsonNode item) -> item.path("metadata").path("namespace").asString(""))
                    .thenComparing(item -> item.path("metadata").path("name").asString("")));
            ArrayNode sorted = LIST_JSON.createArrayNode();
            kept.forEach(sorted::add);
            ((ObjectNode) root).set("items", sorted);
            if ("List".equals(root.path("kind").asString(""))) {
                // kube-apiserver names the list's kind (PodList); a typed client (kubectl describe's pod
                // list) decodes a plain List as no pods at all
                Discovery.listKind(path).ifPresent(kind -> ((ObjectNode) root).put("kind", kind));
            }
            return LIST_JSON.writeValueAsString(root);
        } catch (JacksonException e) {
            return listBody;
        }
    }

    private static boolean isWatch(String path, String query) {
        return path.contains("/watch/") || "true".equals(FieldSelector.QueryString.value(query, "watch"))
                || "1".equals(FieldSelector.QueryString.value(query, "watch"));
    }

    private static String host(RecordedRequest request) {
        String host = request.getHeader("Host");
        return host == null ? "127.0.0.1" : host;
    }

    private static MockResponse json(int code, String body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
    }

    private static MockResponse status(int code, String reason, String message) {
        return json(code, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\""
                + reason + "\",\"code\":" + code + ",\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "'") + "\"}");
    }

    private static MockResponse unprocessable(String message) {
        return new MockResponse().setResponseCode(422).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,\"message\":\""
                + message.replace("\\", "\\\\").replace("\"", "'") + "\"}");
    }

    @Override
    public void shutdown() {
        expectations.shutdown();
        crud.shutdown();
        closer.shutdownNow();
    }

    @Override
    public void releaseResources() {
        expectations.releaseResources();
        crud.releaseResources();
    }

    /** Forwards a watch's callbacks; its teardown (closed, failed) runs off the event loop. */
    private final class CloseOffLoop extends ForwardingWebSocketListener {
        CloseOffLoop(WebSocketListener delegate) {
            super(delegate);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            tearDown(delegate, () -> delegate.onClosed(webSocket, code, reason));
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
            tearDown(delegate, () -> delegate.onFailure(webSocket, failure, response));
        }
    }
}
