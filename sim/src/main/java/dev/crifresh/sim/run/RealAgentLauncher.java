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
 *
 * <p>Every agent of the simulation polls on the same machine, so the poll period grows with the cluster
 * ({@link #procPollFor}): 100 ms up to 30 nodes, 1 s at 300, which keeps all agents together at about 300
 * polls per second. A node's first evaluation after its start does not wait for a poll, so the period does
 * not change how fast a rebooted node attests.
 */
public final class RealAgentLauncher implements AgentLauncher {
    static final Duration PROC_POLL = Duration.ofMillis(100);
    static final int NODES_PER_POLL_STEP = 30;
    static final String VERSION = "sim";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Vertx vertx;
    private final KubernetesClient client;
    private final SimKeys keys;
    private final Duration procPoll;

    /** @param procPoll how often each agent polls its node's {@code /proc} and files ({@link #procPollFor}) */
    public RealAgentLauncher(Vertx vertx, KubernetesClient client, SimKeys keys, Duration procPoll) {
        this.vertx = vertx;
        this.client = client;
        this.keys = keys;
        this.procPoll = procPoll;
    }

    /** The agents' poll period in a simulation of {@code nodes} nodes. */
    public static Duration procPollFor(int nodes) {
        return PROC_POLL.multipliedBy(Math.max(1, (nodes + NODES_PER_POLL_STEP - 1) / NODES_PER_POLL_STEP));
    }

    static AgentSettings settings(String nodeName, HostRoot host, Duration procPoll) {
        AgentSettings d = AgentSettings.defaults(nodeName);
        return new AgentSettings(nodeName, host.procRoot(), host.root(), d.watchGlobs(), d.matcher(), d.rules(),
                d.heartbeat(), d.validity(), procPoll, d.debounce(), -1, VERSION);
    }

    @Override
    public RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) throws Exception {
        AgentRuntime runtime = await(AgentRuntime.start(vertx, client, settings(nodeName, host, procPoll), keys.agentKey(),
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
