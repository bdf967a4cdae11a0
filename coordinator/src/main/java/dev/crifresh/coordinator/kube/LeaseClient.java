package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * The Lease's own fabric8 client: the run's connection settings with fabric8's request retries off (they can
 * stretch one call over many seconds, past the hold it is meant to extend) and a request timeout below a third
 * of the Lease duration. The rollout's fence, not the client, decides what a slow Lease call means.
 */
public final class LeaseClient {
    private LeaseClient() {
    }

    /**
     * The Lease client's request timeout: a quarter of the Lease duration, below the third between two
     * renewals, so that a hung renewal fails in time to be retried before the hold runs out.
     */
    public static Duration requestTimeout(Duration leaseDuration) {
        return leaseDuration.dividedBy(4);
    }

    public static KubernetesClient of(Vertx vertx, KubernetesClient client, Duration leaseDuration) {
        int timeout = (int) Math.max(1, Math.min(Integer.MAX_VALUE, requestTimeout(leaseDuration).toMillis()));
        var config = new ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout(timeout)
                .withConnectionTimeout(timeout)
                .build();
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
                .withKubernetesSerialization(client.getKubernetesSerialization())
                .build();
    }
}
