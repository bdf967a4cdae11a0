package dev.crifresh.sim.serve;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How {@code serve} exposes the simulated cluster.
 *
 * @param apiPort           the API server's loopback port; 0 = any free port
 * @param metricsPort       the first node's /metrics port, the next node one higher, and so on; 0 = any free ports
 * @param kubeconfig        where the kubeconfig goes; the trust bundle and the credential go beside it
 * @param prometheusTargets where the Prometheus file_sd targets go, or null for none
 */
public record ServeSettings(int apiPort, int metricsPort, Path kubeconfig, Path prometheusTargets) {
    public ServeSettings {
        Objects.requireNonNull(kubeconfig, "kubeconfig");
    }
}
