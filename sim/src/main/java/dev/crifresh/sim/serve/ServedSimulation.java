package dev.crifresh.sim.serve;

import dev.crifresh.agent.expire.ExpiryRule;
import dev.crifresh.agent.expire.Judgement;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import dev.crifresh.mockapi.HttpWatchGateway;
import dev.crifresh.sim.kube.ApiOptions;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.run.RealAgentLauncher;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.world.SimulatedWorld;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A simulated cluster that stays up for tools to look at: the scenario's cluster with a real agent per
 * node (hostile conditions written, config updates scheduled from the start), its API server on a
 * loopback port with the {@link ControlRoutes control endpoint}, each node's agent metrics on its own
 * loopback port, and the files that point tools at it ({@link ServeFiles}). {@link #close} stops
 * everything and removes those files; it is safe to call twice, from a shutdown hook too.
 */
public final class ServedSimulation implements AutoCloseable {
    static final Duration FIRST_PUBLISH = Duration.ofSeconds(60);
    /** Beyond the expiry bound: the agents' first Lease round and API latency on a loaded machine. */
    static final Duration EXPIRY_SLACK = Duration.ofSeconds(20);
    private static final long CLOSE_TIMEOUT_SECONDS = 10;

    private final Vertx vertx;
    private final SimulatedWorld cluster;
    private final HttpWatchGateway gateway;
    private final String apiUrl;
    private final ServeFiles files;
    private final List<NodeMetricsServer> metrics;
    private boolean closed;

    private ServedSimulation(Vertx vertx, SimulatedWorld cluster, HttpWatchGateway gateway, String apiUrl,
            ServeFiles files, List<NodeMetricsServer> metrics) {
        this.vertx = vertx;
        this.cluster = cluster;
        this.gateway = gateway;
        this.apiUrl = apiUrl;
        this.files = files;
        this.metrics = metrics;
    }

    /**
     * Builds and starts the cluster, then writes the files; blocks until every running agent attested.
     *
     * @param events told of every simulated platform event as it happens
     */
    public static ServedSimulation start(Scenario scenario, ServeSettings settings, Consumer<SimEvent> events)
            throws TimeoutException, InterruptedException, IOException {
        Vertx vertx = UnhandledErrors.on(Vertx.vertx());
        SimulatedWorld cluster = null;
        List<NodeMetricsServer> metrics = new ArrayList<>();
        HttpWatchGateway gateway = null;
        ServeFiles files = new ServeFiles(settings.kubeconfig(), settings.prometheusTargets());
        try {
            files.lock();
            ControlRoutes[] control = new ControlRoutes[1];
            cluster = SimulatedWorld.create(scenario, vertx,
                    (api, keys) -> new RealAgentLauncher(vertx, api.inCluster().podEnvironment(), keys,
                            RealAgentLauncher.procPollFor(scenario.nodes().size()), settings.agents()),
                    new ApiOptions(api -> control[0] = new ControlRoutes(api)));
            gateway = listen("--port " + settings.apiPort(), settings.apiPort(), "", HttpWatchGateway.start(vertx, settings.apiPort(), cluster.api().server().getPort()));
            cluster.onEvent(events);
            cluster.startAgents();
            cluster.awaitAgentsPublished(FIRST_PUBLISH);
            cluster.writeHostileAttestations();
            awaitExpiredMarked(cluster, settings.agents().expiryBound().plus(EXPIRY_SLACK));
            cluster.beginRun();
            int port = settings.metricsPort();
            for (SimulatedNode node : cluster.nodes()) {
                metrics.add(listen("--metrics-port " + settings.metricsPort(), port, " (" + node.name() + "'s /metrics)", NodeMetricsServer.start(vertx, node, port)));
                port = port == 0 ? 0 : port + 1;
            }
            control[0].serve(cluster, next -> {
                try {
                    files.writeCredential(scenario.registry(), next);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot rewrite " + files.credentialFile(), e);
                }
            });
            files.writeTrust(cluster.keys().trust());
            files.writeCredential(scenario.registry(), cluster.desiredCredential());
            Map<String, Integer> ports = new LinkedHashMap<>();
            metrics.forEach(m -> ports.put(m.nodeName(), m.port()));
            files.writeTargets(ports);
            // last: a kubeconfig on disk means the cluster is ready to be looked at
            String url = "http://127.0.0.1:" + gateway.port();
            files.lockServing(url);
            files.writeKubeconfig(url);
            return new ServedSimulation(vertx, cluster, gateway, url, files, List.copyOf(metrics));
        } catch (RuntimeException | TimeoutException | InterruptedException | IOException e) {
            files.close();
            metrics.forEach(m -> m.close());
            if (gateway != null) {
                gateway.close();
            }
            if (cluster != null) {
                cluster.close();
            }
            vertx.close();
            throw e;
        }
    }

    /**
     * Waits until the agents' expiry leader has marked every condition that outlived its proof (the scenario's
     * expired attestations): what kubectl shows first is then what stays.
     */
    private static void awaitExpiredMarked(SimulatedWorld cluster, Duration timeout)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> left = new ArrayList<>();
            Instant now = Instant.now();
            for (Node node : cluster.client().nodes().list().getItems()) {
                if (ExpiryRule.judge(node, now, "serve") instanceof Judgement.Downgrade) {
                    left.add(node.getMetadata().getName());
                }
            }
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("the agents' expiry leader did not mark " + left + " Unknown within "
                        + timeout.toSeconds() + " s");
            }
            Thread.sleep(100);
        }
    }

    /** A loopback server started for {@code flag}; a port that cannot be had is the user's to change: {@link ServeUsageException}. */
    private static <T> T listen(String flag, int port, String what, Future<T> future) throws InterruptedException {
        // flag: the flag and the value the user gave it
        try {
            return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String why = cause instanceof BindException ? "address already in use"
                    : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
            throw new ServeUsageException(flag + ": cannot listen on 127.0.0.1:" + port + what + ": " + why, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("a loopback server did not start within 30 s", e);
        }
    }

    /** The API server's URL as the kubeconfig names it (the {@link HttpWatchGateway} in front of the mock). */
    public String apiUrl() {
        return apiUrl;
    }

    public Path kubeconfig() {
        return files.kubeconfig();
    }

    public Path trustDir() {
        return files.trustDir();
    }

    public Path credentialFile() {
        return files.credentialFile();
    }

    /** Each node's /metrics port, in node order. */
    public Map<String, Integer> metricsPorts() {
        Map<String, Integer> ports = new LinkedHashMap<>();
        metrics.forEach(m -> ports.put(m.nodeName(), m.port()));
        return ports;
    }

    /** Removes the files first (tools stop finding a cluster that is going away), then stops everything. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            files.close();
            for (NodeMetricsServer m : metrics) {
                m.close().toCompletionStage().toCompletableFuture().orTimeout(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                        .exceptionally(e -> null).join();
            }
            gateway.close().toCompletionStage().toCompletableFuture().orTimeout(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .exceptionally(e -> null).join();
            cluster.close();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .exceptionally(e -> null).join();
        }
    }
}
