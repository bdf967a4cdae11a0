package dev.crifresh.coordinator.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Which cluster: fabric8's standard discovery (in-cluster, $KUBECONFIG, ~/.kube/config), or the flags. */
public final class ClusterOptions {
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
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new Vertx5HttpClientFactory(vertx)).build();
    }
}
