package dev.crifresh.agent.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's connection to the API server: in a pod (the DaemonSet), {@link VertxNodeApi} with the
 * service account; elsewhere (a developer's machine, a kubeconfig) the fabric8 client with its standard
 * configuration. fabric8's classes are loaded only on the second path.
 *
 * @param api         the three Node calls
 * @param closer      releases the connections
 * @param description which path was taken, for the start-up log (no credential)
 */
public record NodeApis(NodeApi api, AutoCloseable closer, String description) {

    public static NodeApis standard(Vertx vertx, Map<String, String> env) {
        Optional<InClusterConfig> inCluster = InClusterConfig.fromEnvironment(env);
        if (inCluster.isPresent()) {
            InClusterConfig c = inCluster.get();
            VertxNodeApi api = new VertxNodeApi(vertx, c);
            return new NodeApis(api, api, "in-cluster: https://" + hostPort(c) + ", service account token "
                    + c.tokenFile() + ", CA " + c.caFile());
        }
        KubernetesClient client = KubernetesClients.standard(vertx);
        return new NodeApis(new Fabric8NodeApi(client), client::close,
                "fabric8 standard configuration: " + client.getConfiguration().getMasterUrl());
    }

    private static String hostPort(InClusterConfig c) {
        return (c.host().contains(":") ? "[" + c.host() + "]" : c.host()) + ":" + c.port();
    }

    /** The expiry leader's calls: only the in-cluster client makes them. */
    public Optional<ExpiryApi> expiryApi() {
        return api instanceof ExpiryApi e ? Optional.of(e) : Optional.empty();
    }

    public void close() {
        try {
            closer.close();
        } catch (Exception e) {
            // shutting down: nothing left to do with a failed close
        }
    }
}
