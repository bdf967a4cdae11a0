package dev.crifresh.sim.kube;

import dev.crifresh.mockapi.MockApiDispatcher;
import dev.crifresh.mockapi.CrudApiServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The simulated cluster's API server: fabric8's {@link KubernetesMockServer} in CRUD mode (with
 * expectations taking precedence, for the Eviction API the mock does not emulate; see
 * {@link dev.crifresh.mockapi.MockApiDispatcher} for the one fix it needs) on loopback, over real HTTP and watches, and a
 * client on the Vert.x 5 HTTP client sharing the simulation's Vert.x.
 */
public final class MockApi implements AutoCloseable {
    private static final Logger QUIET = Logger.getLogger("io.fabric8.mockwebserver");

    private final Vertx vertx;
    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private InClusterEndpoint inCluster;

    private MockApi(Vertx vertx, KubernetesMockServer server, KubernetesClient client) {
        this.vertx = vertx;
        this.server = server;
        this.client = client;
    }

    public static MockApi start(Vertx vertx) {
        return start(vertx, ApiOptions.DEFAULT);
    }

    /** A server on a free loopback port with {@code options.routes()} answered first. */
    public static MockApi start(Vertx vertx, ApiOptions options) {
        // The mock server logs every request at INFO through java.util.logging; the simulation's output is
        // the coordinator's progress and report, so keep only its warnings.
        QUIET.setLevel(Level.WARNING);
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        KubernetesMockServer server = CrudApiServer.crud(expectations,
                options.routes().apply(new MockApiDispatcher(expectations)));
        server.init(InetAddress.getLoopbackAddress(), 0);
        KubernetesClient client = server.createClient(new Vertx5HttpClientFactory(vertx));
        return new MockApi(vertx, server, client);
    }

    public KubernetesMockServer server() {
        return server;
    }

    /** The client the simulated platform and the coordinator use (the agents use {@link #inCluster()}). */
    public KubernetesClient client() {
        return client;
    }

    /** The API server as the simulated pods reach it (HTTPS, service account); started at the first call. */
    public synchronized InClusterEndpoint inCluster() {
        if (inCluster == null) {
            inCluster = InClusterEndpoint.start(vertx, InetAddress.getLoopbackAddress().getHostAddress(), server.getPort());
        }
        return inCluster;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (inCluster != null) {
                inCluster.close();
            }
        }
        client.close();
        server.destroy();
    }
}
