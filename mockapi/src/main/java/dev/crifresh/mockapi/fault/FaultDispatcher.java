package dev.crifresh.mockapi.fault;

import dev.crifresh.mockapi.ForwardingWebSocketListener;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * A dispatcher in front of the mock API's own (a {@code MockApiDispatcher}) that injects HTTP-level
 * faults per client and records every exchange.
 *
 * <p>A client names itself with the header {@link #CLIENT_HEADER} on every request (fabric8:
 * {@code ConfigBuilder.withCustomHeaders}; {@link FaultyApi#clientConfig} does it). The rules of
 * {@link #client(String)} apply only to that client's requests, so two clients of one server can see
 * different faults — e.g. one coordinator's Lease calls answered 500 while another's pass. Requests
 * without the header are never faulted (a test's own client).
 *
 * <p>Connection-level faults (refused or hung connections, a partition) are not a dispatcher's job: put
 * a {@link TcpProxy} between the client and the server.
 */
public final class FaultDispatcher extends Dispatcher {
    /** The request header that names the client. */
    public static final String CLIENT_HEADER = "X-Crifresh-Test-Client";

    private final Dispatcher delegate;
    private final Map<String, ClientFaults> faults = new ConcurrentHashMap<>();
    private final Queue<Exchange> history = new ConcurrentLinkedQueue<>();
    /** The open watches (WebSockets) of named clients, with the path they watch. */
    private final Map<WebSocket, OpenWatch> watches = new ConcurrentHashMap<>();

    private record OpenWatch(String client, String path) {
    }

    public FaultDispatcher(Dispatcher delegate) {
        this.delegate = delegate;
    }

    /** The fault rules for one client (created empty on first use). */
    public ClientFaults client(String name) {
        return faults.computeIfAbsent(name, n -> new ClientFaults());
    }

    /** Every exchange so far, in the order the requests reached the dispatcher. */
    public List<Exchange> history() {
        return new ArrayList<>(history);
    }

    /** The exchanges of one client that match {@code which}. */
    public List<Exchange> history(String client, Predicate<Exchange> which) {
        return history.stream().filter(e -> e.client().equals(client) && which.test(e)).toList();
    }

    /**
     * Closes, from the server's side, every open watch of {@code client} whose path (query included)
     * contains {@code pathFragment}: a normal WebSocket close (1000), as when kube-apiserver ends a watch
     * (its request timeout, a restart behind a load balancer). The client must watch again.
     *
     * @return how many watches were closed
     */
    public int closeWatches(String client, String pathFragment) {
        int closed = 0;
        for (Map.Entry<WebSocket, OpenWatch> e : watches.entrySet()) {
            if (e.getValue().client().equals(client) && e.getValue().path().contains(pathFragment)
                    && watches.remove(e.getKey()) != null) {
                e.getKey().close(1000, "watch closed by the server");
                closed++;
            }
        }
        return closed;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        long now = System.nanoTime();
        String client = request.getHeader(CLIENT_HEADER);
        ClientFaults.Rule rule = client == null ? null : faults.getOrDefault(client, EMPTY).match(request);
        MockResponse response;
        if (rule instanceof ClientFaults.Fail fail) {
            response = status(fail.code());
        } else if (rule instanceof ClientFaults.Gone) {
            response = new MockResponse().withWebSocketUpgrade(new Expired());
        } else {
            response = delegate.dispatch(request);
            if (rule instanceof ClientFaults.Delay delay) {
                response.setBodyDelay(delay.delay());
            }
        }
        if (client != null && response.getWebSocketListener() != null) {
            response.withWebSocketUpgrade(new Tracked(response.getWebSocketListener(), client,
                    request.getPath() == null ? "" : request.getPath()));
        }
        int code = rule instanceof ClientFaults.Gone ? 410 : response.getWebSocketListener() != null ? 101 : response.code();
        history.add(new Exchange(now, client == null ? "" : client, request.getMethod(), request.getPath(), code, rule != null));
        return response;
    }

    private static final ClientFaults EMPTY = new ClientFaults();

    /** A watch that opens, reports 410 Expired in an ERROR event, and is closed by the server. */
    private static final class Expired extends WebSocketListener {
        @Override
        public void onOpen(WebSocket ws, Response response) {
            ws.send("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                    + "\"status\":\"Failure\",\"message\":\"too old resource version (injected fault)\",\"reason\":\"Expired\","
                    + "\"code\":410}}");
            ws.close(1000, "");
        }
    }

    /** The store's watch listener, unchanged, but known to {@link #closeWatches} while it is open. */
    private final class Tracked extends ForwardingWebSocketListener {
        private final OpenWatch watch;

        Tracked(WebSocketListener delegate, String client, String path) {
            super(delegate);
            this.watch = new OpenWatch(client, path);
        }

        @Override
        public void onOpen(WebSocket ws, Response response) {
            watches.put(ws, watch);
            super.onOpen(ws, response);
        }

        @Override
        public void onClosing(WebSocket ws, int code, String reason) {
            watches.remove(ws);
            super.onClosing(ws, code, reason);
        }

        @Override
        public void onClosed(WebSocket ws, int code, String reason) {
            watches.remove(ws);
            super.onClosed(ws, code, reason);
        }

        @Override
        public void onFailure(WebSocket ws, Throwable t, Response response) {
            watches.remove(ws);
            super.onFailure(ws, t, response);
        }
    }

    private static MockResponse status(int code) {
        String reason = switch (code) {
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            case 504 -> "Timeout";
            default -> "Failure";
        };
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"" + reason
                        + "\",\"code\":" + code + ",\"message\":\"injected fault: " + code + "\"}");
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    public void releaseResources() {
        delegate.releaseResources();
    }
}
