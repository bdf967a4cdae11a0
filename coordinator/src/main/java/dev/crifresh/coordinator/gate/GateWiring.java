package dev.crifresh.coordinator.gate;

import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.gate.block.Blockers;
import dev.crifresh.coordinator.gate.block.Fabric8BlockerPods;
import dev.crifresh.coordinator.gate.block.PrometheusAlerts;
import dev.crifresh.coordinator.gate.etcd.EtcdProbe;
import dev.crifresh.coordinator.gate.pull.Fabric8ProbePods;
import dev.crifresh.coordinator.gate.pull.PullProof;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * How to build one run's {@link Gates}: the settings and the sources they read.
 *
 * @param etcd          null unless {@code --etcd-check} is talosctl or command
 * @param prometheusUrl Prometheus' base URL, with {@code alertPattern}; null when no alert blocks
 * @param alertPattern  {@code --block-on-alert}: alert names (full match) that block while firing
 * @param podSelector   {@code --block-on-pod-selector}, or null
 */
public record GateWiring(GateSettings settings, EtcdProbe etcd, String prometheusUrl, Pattern alertPattern,
                         String podSelector) {
    /** How long one Prometheus request may take. */
    static final Duration PROMETHEUS_TIMEOUT = Duration.ofSeconds(10);

    public static GateWiring none() {
        return new GateWiring(GateSettings.off(), null, null, null, null);
    }

    public Gates build(Vertx vertx, Context context, KubernetesClient client, String runId, ProgressListener progress) {
        PullProof proof = settings.pullProof() == PullProofMode.OFF ? null
                : new PullProof(Ticker.of(vertx), new Fabric8ProbePods(context, client, settings.probeNamespace()),
                        settings.pullProofImage(), settings.pullProofTimeout(), runId);
        Blockers blockers = new Blockers(
                prometheusUrl == null ? null : new PrometheusAlerts(vertx, prometheusUrl, PROMETHEUS_TIMEOUT),
                alertPattern,
                podSelector == null ? null : new Fabric8BlockerPods(context, client, podSelector));
        return new Gates(Ticker.of(vertx), context, settings, proof, settings.etcdCheck() == EtcdCheckMode.NONE ? null : etcd,
                blockers, progress);
    }
}
