package dev.crifresh.agent.testing;

import dev.crifresh.mockapi.MockApiDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Map;
import java.util.Queue;

/**
 * The project's {@link MockApiDispatcher} surviving a server stop and start on the same port, as an API
 * server outage does: the store lives here, and only {@link #shutDownForGood()} shuts it down.
 */
public final class RestartableDispatcher extends Dispatcher {
    private final Dispatcher inner;

    public RestartableDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations) {
        this.inner = new MockApiDispatcher(expectations);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        return inner.dispatch(request);
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
