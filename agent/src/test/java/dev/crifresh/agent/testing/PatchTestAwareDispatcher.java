package dev.crifresh.agent.testing;

import dev.crifresh.mockapi.WatchSafeDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.Map;
import java.util.Queue;

/**
 * The project's {@link WatchSafeDispatcher} with one more mock gap closed: when a JSON Patch {@code test}
 * operation fails, fabric8 8.0.0's CRUD dispatcher throws inside its handler and never answers (the
 * client times out), whereas kube-apiserver answers 422 Unprocessable Entity. This answers 422 with a
 * Status, as kube-apiserver does. It also survives a server stop and start on the same port (the
 * store lives here): only {@link #shutDownForGood()} shuts the inner dispatcher down.
 */
public final class PatchTestAwareDispatcher extends Dispatcher {
    private final Dispatcher inner;

    public PatchTestAwareDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations) {
        this.inner = new WatchSafeDispatcher(expectations);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        try {
            return inner.dispatch(request);
        } catch (JsonPatchException e) {
            String message = e.getMessage() == null ? "json patch failed" : e.getMessage().replace("\"", "'");
            return new MockResponse().setResponseCode(422).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,\"message\":\"" + message + "\"}");
        }
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
