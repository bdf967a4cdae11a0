package dev.crifresh.agent.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import tools.jackson.databind.json.JsonMapper;

/** fabric8 clients on a shared Vert.x 5 instance, tuned for the agent. */
public final class KubernetesClients {
    /** Short enough that a hung API server does not hold a worker thread for long. */
    static final int REQUEST_TIMEOUT_MS = 10_000;

    private KubernetesClients() {
    }

    /** fabric8's standard configuration: in-cluster service account, else kubeconfig. */
    public static KubernetesClient standard(Vertx vertx) {
        return create(vertx, Config.autoConfigure(null));
    }

    /**
     * A client on {@code vertx} for {@code config}. fabric8's own request retries are switched off:
     * the agent retries with its own backoff and keeps evaluating meanwhile. The serialization does
     * not scan the class path for every Kubernetes kind (about 600 model classes the agent never
     * reads, several MiB of metaspace): the agent only reads typed Nodes.
     */
    public static KubernetesClient create(Vertx vertx, Config config) {
        Config tuned = new ConfigBuilder(config)
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout(REQUEST_TIMEOUT_MS)
                .build();
        return new KubernetesClientBuilder()
                .withConfig(tuned)
                .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
                .withKubernetesSerialization(new KubernetesSerialization(JsonMapper.builder().build(), false))
                .build();
    }
}
