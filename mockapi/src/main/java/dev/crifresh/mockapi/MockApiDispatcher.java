package dev.crifresh.mockapi;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * fabric8's mixed dispatcher (expectations first, then the CRUD store) with two gaps of fabric8 8.0.0's
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
 *   <li><b>A failed JSON Patch {@code test} operation is answered 422</b> with a Status, as kube-apiserver
 *   does; the mock throws inside its handler and never answers, so the client would time out.</li>
 * </ul>
 */
public final class MockApiDispatcher extends Dispatcher {
    private final Map<ServerRequest, Queue<ServerResponse>> responses;
    private final MockDispatcher expectations;
    private final KubernetesCrudDispatcher crud;
    private final ExecutorService closer = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "mock-api-watch-close");
        t.setDaemon(true);
        return t;
    });

    private final Set<?> watchers;
    private final ReadWriteLock storeLock;

    public MockApiDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
        this.responses = responses;
        this.expectations = new MockDispatcher(responses);
        this.crud = new KubernetesCrudDispatcher() {
            @Override
            public MockResponse handleWatch(String path) {
                MockResponse response = super.handleWatch(path);
                WebSocketListener listener = response.getWebSocketListener();
                return listener == null ? response : response.withWebSocketUpgrade(new CloseOffLoop(listener));
            }
        };
        this.watchers = field(crud, "watchEventListeners", Set.class);
        this.storeLock = field(crud, "lock", ReadWriteLock.class);
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
                teardown.run();
            });
        } catch (java.util.concurrent.RejectedExecutionException shutDown) {
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
        try {
            return crud.dispatch(request);
        } catch (JsonPatchException e) {
            return unprocessable(e.getMessage() == null ? "json patch failed" : e.getMessage());
        }
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

    private final class CloseOffLoop extends WebSocketListener {
        private final WebSocketListener delegate;

        CloseOffLoop(WebSocketListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onBeforeAccept(WebSocket webSocket, Response response) {
            delegate.onBeforeAccept(webSocket, response);
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            delegate.onOpen(webSocket, response);
        }

        @Override
        public void onMessage(WebSocket webSocket, String text) {
            delegate.onMessage(webSocket, text);
        }

        @Override
        public void onMessage(WebSocket webSocket, ByteString bytes) {
            delegate.onMessage(webSocket, bytes);
        }

        @Override
        public void onMessage(WebSocket webSocket, byte[] bytes) {
            delegate.onMessage(webSocket, bytes);
        }

        @Override
        public void onPing(WebSocket webSocket, byte[] bytes) {
            delegate.onPing(webSocket, bytes);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            delegate.onClosing(webSocket, code, reason);
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
