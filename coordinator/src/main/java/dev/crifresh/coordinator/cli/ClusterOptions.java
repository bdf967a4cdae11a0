package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.kube.DecoderWarmup;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import tools.jackson.databind.json.JsonMapper;

/** Which cluster: fabric8's standard discovery (in-cluster, $KUBECONFIG, ~/.kube/config), or the flags. */
public final class ClusterOptions {
    /** Short enough that a hung API server does not hold a worker thread for long. */
    static final int REQUEST_TIMEOUT_MS = 10_000;

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig file (default: in-cluster, $KUBECONFIG or ~/.kube/config).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "Kubeconfig context to use (default: the current context).")
    String context;

    public KubernetesClient connect(Vertx vertx) {
        Config config;
        if (kubeconfig != null) {
            if (!Files.isReadable(kubeconfig)) {
                throw new UsageException("--kubeconfig " + kubeconfig + " is not a readable file");
            }
            try {
                config = Config.fromKubeconfig(context, kubeconfig.toFile());
            } catch (RuntimeException e) {
                throw new UsageException("--kubeconfig " + kubeconfig + " cannot be used: " + e.getMessage(), e);
            }
        } else {
            config = Config.autoConfigure(context);
        }
        return client(vertx, config);
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
