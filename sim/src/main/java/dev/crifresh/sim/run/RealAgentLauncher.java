package dev.crifresh.sim.run;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.AgentSettings;
import dev.crifresh.sim.cluster.AgentLauncher;
import dev.crifresh.sim.cluster.HostRoot;
import dev.crifresh.sim.cluster.SimKeys;
import dev.crifresh.sim.cluster.SimulatedHostClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts the real agent ({@link AgentRuntime}, the code the DaemonSet runs) for a simulated node: the
 * production settings, pointed at the node's host root and clock, without an HTTP server, polling /proc
 * more often than in production so that simulated containerd restarts are seen quickly.
 */
public final class RealAgentLauncher implements AgentLauncher {
    static final Duration PROC_POLL = Duration.ofMillis(100);
    static final String VERSION = "sim";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Vertx vertx;
    private final KubernetesClient client;
    private final SimKeys keys;

    public RealAgentLauncher(Vertx vertx, KubernetesClient client, SimKeys keys) {
        this.vertx = vertx;
        this.client = client;
        this.keys = keys;
    }

    static AgentSettings settings(String nodeName, HostRoot host) {
        AgentSettings d = AgentSettings.defaults(nodeName);
        return new AgentSettings(nodeName, host.procRoot(), host.root(), d.watchGlobs(), d.matcher(), d.rules(),
                d.heartbeat(), d.validity(), PROC_POLL, d.debounce(), -1, VERSION);
    }

    @Override
    public RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) throws Exception {
        AgentRuntime runtime = await(AgentRuntime.start(vertx, client, settings(nodeName, host), keys.agentKey(),
                keys.fingerprintKey(), clock));
        return new RunningAgent() {
            @Override
            public void stop() throws Exception {
                await(runtime.stop());
            }

            @Override
            public Optional<AgentRuntime> runtime() {
                return Optional.of(runtime);
            }
        };
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
