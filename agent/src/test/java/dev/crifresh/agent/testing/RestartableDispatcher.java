package dev.crifresh.agent.testing;

import dev.crifresh.mockapi.MockApiDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The project's {@link MockApiDispatcher} surviving a server stop and start on the same port, as an API
 * server outage does: the store lives here, and only {@link #shutDownForGood()} shuts it down. Like
 * kube-apiserver it can authenticate: once {@link #acceptOnly(Set)} named the valid bearer tokens, any
 * other request (no token, an old one) is answered 401. Every request's method, path and token is recorded.
 */
public final class RestartableDispatcher extends Dispatcher {
    private final Dispatcher inner;
    private volatile Set<String> accepted;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    /** One request as the server saw it; {@code token} is null without a bearer token. */
    public record Seen(String method, String path, String token) {
    }

    public RestartableDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations) {
        this.inner = new MockApiDispatcher(expectations);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String authorization = request.getHeader("Authorization");
        String token = authorization != null && authorization.startsWith("Bearer ")
                ? authorization.substring("Bearer ".length()) : null;
        seen.add(new Seen(request.getMethod(), request.getPath(), token));
        Set<String> valid = accepted;
        if (valid != null && (token == null || !valid.contains(token))) {
            return new MockResponse().setResponseCode(401).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"reason\":\"Unauthorized\",\"code\":401,\"message\":\"Unauthorized\"}");
        }
        return inner.dispatch(request);
    }

    /** From now on only these bearer tokens are valid; null accepts every request. */
    public void acceptOnly(Set<String> tokens) {
        accepted = tokens == null ? null : Set.copyOf(tokens);
    }

    /** The requests seen so far, oldest first. */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** A server stop: keep the store and the watch machinery for the restart. */
    @Override
    public void shutdown() {
    }

    @Override
    public void releaseResources() {
    }

    public void shutDownForGood() {
        inner.shutdown();
        inner.releaseResources();
    }
}
