package dev.crifresh.sim.run;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.kube.InClusterConfig;
import dev.crifresh.agent.kube.VertxNodeApi;
import dev.crifresh.sim.node.AgentLauncher;
import dev.crifresh.sim.node.HostRoot;
import dev.crifresh.sim.node.SimulatedHostClock;
import dev.crifresh.sim.base.SimKeys;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts the real agent ({@link AgentRuntime}, the code the DaemonSet runs) for a simulated node: the
 * production settings, pointed at the node's host root and clock, without an HTTP server, polling /proc
 * more often than in production so that simulated containerd restarts are seen quickly. Each agent reaches
 * the API server as the DaemonSet's pod does: its own {@link VertxNodeApi} on the in-cluster configuration
 * read from the pod's environment (HTTPS verified against the service account's CA, bearer token), closed
 * when the agent stops.
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
    private final InClusterConfig inCluster;
    private final SimKeys keys;
    private final Duration procPoll;
    private final AgentTimes times;

    /**
     * @param podEnvironment the agent container's environment that names the API server and the service
     *                       account ({@link dev.crifresh.sim.kube.InClusterEndpoint#podEnvironment})
     * @param procPoll       how often each agent polls its node's {@code /proc} and files ({@link #procPollFor})
     */
    public RealAgentLauncher(Vertx vertx, Map<String, String> podEnvironment, SimKeys keys, Duration procPoll) {
        this(vertx, podEnvironment, keys, procPoll, AgentTimes.PRODUCTION);
    }

    /** @param times the agents' heartbeat and validity, and whether they elect an expiry leader */
    public RealAgentLauncher(Vertx vertx, Map<String, String> podEnvironment, SimKeys keys, Duration procPoll,
                             AgentTimes times) {
        this.times = times;
        this.vertx = vertx;
        this.inCluster = InClusterConfig.fromEnvironment(podEnvironment).orElseThrow(() -> new IllegalArgumentException(
                "the agents' environment names no in-cluster API server and service account token: "
                        + podEnvironment.keySet()));
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
                d.heartbeat(), d.validity(), procPoll, d.debounce(), -1, VERSION, d.mounts(), d.containerdGeneration(),
                d.criSocket(), d.containerdIntrospection());
    }

    @Override
    public RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) throws Exception {
        VertxNodeApi api = new VertxNodeApi(vertx, inCluster);
        AgentRuntime runtime;
        try {
            AgentSettings settings = settings(nodeName, host, procPoll);
            settings = settings.withTiming(times.heartbeat(), times.validity(), settings.procPoll(), settings.debounce());
            runtime = await(AgentRuntime.start(vertx, api, settings, keys.agentKey(), keys.fingerprintKey(), clock, api,
                    times.expiry(nodeName)));
        } catch (Exception | Error e) {
            api.close();
            throw e;
        }
        return new RunningAgent() {
            @Override
            public void stop() throws Exception {
                try {
                    await(runtime.stop());
                } finally {
                    api.close();
                }
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
