package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.kube.DecoderWarmup;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;
import tools.jackson.databind.json.JsonMapper;

/** Which cluster: fabric8's standard discovery (in-cluster, $KUBECONFIG, ~/.kube/config), or the flags. */
public final class ClusterOptions {
    /** Short enough that a hung API server does not hold a worker thread for long. */
    static final int REQUEST_TIMEOUT_MS = 10_000;

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig file (default: in-cluster, $KUBECONFIG or ~/.kube/config).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "Kubeconfig context to use (default: the current context); an unknown one is exit 2.")
    String context;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long to keep trying an API server that cannot be reached (connection refused or timed out, unknown host) before exit 5 (default: ${DEFAULT-VALUE}).")
    Duration connectTimeout = Duration.ofSeconds(30);

    /** The cluster the flags and the environment name; a usage error when they name none, or one that is not defined. */
    public ClusterTarget target() {
        if (connectTimeout.isZero() || connectTimeout.isNegative()) {
            throw new UsageException("--connect-timeout must be a positive duration");
        }
        return KubeconfigResolver.system().resolve(kubeconfig, context);
    }

    public KubernetesClient connect(Vertx vertx, ClusterTarget target) {
        return client(vertx, target.config());
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * Like the agent's client: an explicit request timeout, and a serialization that does not scan the
     * class path for every Kubernetes kind (the coordinator only reads typed Nodes, Pods, Leases and
     * Secrets). fabric8's own request retries are off: a retry it sends on its own could reach the API after
     * the run's hold on the Lease ended. The rollout retries transient errors itself, checking the Lease
     * before every attempt (see docs/design.md, "Fencing"). The serialization's decoders are built here,
     * on the calling thread: fabric8 decodes responses on the event loop ({@link DecoderWarmup}).
     */
    static KubernetesClient client(Vertx vertx, Config config) {
        return client(vertx, config, new KubernetesSerialization(JsonMapper.builder().build(), false));
    }

    /** {@link #client(Vertx, Config)} with a given serialization (a test observes what it decodes, and where). */
    public static KubernetesClient client(Vertx vertx, Config config, KubernetesSerialization serialization) {
        Config tuned = new ConfigBuilder(config).withRequestTimeout(REQUEST_TIMEOUT_MS).withRequestRetryBackoffLimit(0).build();
        DecoderWarmup.run(serialization);
        return new KubernetesClientBuilder()
                .withConfig(tuned)
                .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
                .withKubernetesSerialization(serialization)
                .build();
    }
}
