package dev.crifresh.sim.serve;

import dev.crifresh.sim.run.AgentTimes;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How {@code serve} exposes the simulated cluster.
 *
 * @param apiPort           the API server's loopback port; 0 = any free port
 * @param metricsPort       the first node's /metrics port, the next node one higher, and so on; 0 = any free ports
 * @param kubeconfig        where the kubeconfig goes; the trust bundle and the credential go beside it
 * @param prometheusTargets where the Prometheus file_sd targets go, or null for none
 * @param agents            the agents' heartbeat and validity; serve's agents always elect an expiry leader
 */
public record ServeSettings(int apiPort, int metricsPort, Path kubeconfig, Path prometheusTargets, AgentTimes agents) {
    public ServeSettings {
        Objects.requireNonNull(kubeconfig, "kubeconfig");
        Objects.requireNonNull(agents, "agents");
    }
}
