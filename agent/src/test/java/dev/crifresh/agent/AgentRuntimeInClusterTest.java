package dev.crifresh.agent;

import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.kube.VertxNodeApi;
import dev.crifresh.agent.testing.InCluster;

/**
 * Every {@link AgentRuntimeTest} again, on the client the DaemonSet uses: {@link VertxNodeApi} with the
 * service account's token and CA, over HTTPS to the mock API server (which then accepts only that token
 * and the test's own admin token).
 */
class AgentRuntimeInClusterTest extends AgentRuntimeTest {
    private InCluster cluster;
    private VertxNodeApi client;

    @Override
    NodeApi nodeApi() throws Exception {
        if (cluster == null) {
            cluster = new InCluster(vertx(), api(), dir(), "service-account-token-1");
        }
        // one client per test, built off the event loop, as RunCommand does
        client = new VertxNodeApi(vertx(), cluster.config());
        return client;
    }

    @Override
    void closeNodeApi() throws Exception {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
