package dev.crifresh.mockapi.fault;

import dev.crifresh.mockapi.CrudApiServer;
import dev.crifresh.mockapi.MockApiDispatcher;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * One mock API server (CRUD mode, {@link MockApiDispatcher}) behind a {@link FaultDispatcher}, with a
 * {@link TcpProxy} per named client: the fixture for fault-injection tests with several clients of one
 * API. Typical use:
 * <pre>{@code
 * FaultyApi api = FaultyApi.start();
 * Config a = api.clientConfig("a");            // through a's own proxy, requests tagged "a"
 * api.faults("a").fail(Requests.leases(), 500); // a's Lease calls answered 500
 * api.proxy("a").hang();                        // a partitioned from the API
 * api.proxy("a").pass();                        // healed
 * api.closeWatches("a", "/api/v1/nodes");       // a's Node watches ended by the server
 * api.history();                                // every exchange, per client
 * }</pre>
 */
public final class FaultyApi implements AutoCloseable {
    private final KubernetesMockServer server;
    private final FaultDispatcher dispatcher;
    private final Map<String, TcpProxy> proxies = new HashMap<>();

    private FaultyApi() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        dispatcher = new FaultDispatcher(new MockApiDispatcher(expectations));
        server = CrudApiServer.crud(expectations, dispatcher);
        server.init(InetAddress.getLoopbackAddress(), 0);
    }

    /** Starts the server on a free loopback port. */
    public static FaultyApi start() {
        return new FaultyApi();
    }

    public KubernetesMockServer server() {
        return server;
    }

    public FaultDispatcher dispatcher() {
        return dispatcher;
    }

    /** The fault rules of one client's requests. */
    public ClientFaults faults(String client) {
        return dispatcher.client(client);
    }

    /** The client's own proxy to the server (started on first use). */
    public synchronized TcpProxy proxy(String client) {
        return proxies.computeIfAbsent(client, c -> TcpProxy.to(server.getHostName(), server.getPort()));
    }

    /**
     * A fabric8 client configuration for {@code client}: plain HTTP to the client's proxy, namespace
     * {@code test} (as the mock server's own clients), {@link FaultDispatcher#CLIENT_HEADER} on every request.
     * fabric8's defaults otherwise (request retries included): tune with {@code new ConfigBuilder(config)}.
     */
    public Config clientConfig(String client) {
        return new ConfigBuilder(Config.empty()).withMasterUrl(proxy(client).httpUrl()).withTrustCerts(true)
                .withNamespace("test").withCustomHeaders(Map.of(FaultDispatcher.CLIENT_HEADER, client)).build();
    }

    /** Closes {@code client}'s open watches on paths containing {@code pathFragment} from the server's side. */
    public int closeWatches(String client, String pathFragment) {
        return dispatcher.closeWatches(client, pathFragment);
    }

    /** Every exchange so far, all clients. */
    public List<Exchange> history() {
        return dispatcher.history();
    }

    @Override
    public synchronized void close() {
        for (TcpProxy p : new ArrayList<>(proxies.values())) {
            p.close();
        }
        server.destroy();
    }
}
