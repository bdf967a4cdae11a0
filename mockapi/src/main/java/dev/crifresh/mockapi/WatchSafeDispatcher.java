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
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * fabric8's mixed dispatcher (expectations first, then the CRUD store), with one fix that the simulation
 * needs. When a client closes a watch, the mock's watch listener (fabric8 8.0.0) shuts its event sender
 * down and waits for it — on the server's event loop. If the sender is at that moment writing an event
 * to that watch, the write waits for the very same event loop, and the whole API server stalls for 30 s
 * (the write's timeout). Agents close their Node watch on every simulated reboot and the coordinator
 * closes its informer at the end of a run, with status events in flight, so this happens.
 *
 * <p>Here the listener's close and failure handling run on their own thread. Before the listener's sender
 * is shut down, the listener is taken out of the store's watcher set under the store's write lock, so no
 * request can route an event to a sender that is shutting down (the mock would throw out of that request
 * and never answer it). Both are private fields of {@link KubernetesCrudDispatcher}, reached by
 * reflection; if a fabric8 upgrade renames them, construction fails loudly.
 */
public final class WatchSafeDispatcher extends Dispatcher {
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

    public WatchSafeDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
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
                    + name + "' in KubernetesCrudDispatcher; revisit WatchSafeDispatcher", e);
        }
    }

    /** Runs a listener's teardown off the event loop, after no request can route events to it any more. */
    private void tearDown(WebSocketListener listener, Runnable teardown) {
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
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Queue<ServerResponse> expected = responses.get(
                new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
        if (expected != null && !expected.isEmpty()) {
            return expectations.dispatch(request);
        }
        return crud.dispatch(request);
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
