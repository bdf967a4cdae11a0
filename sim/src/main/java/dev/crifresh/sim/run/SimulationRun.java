package dev.crifresh.sim.run;

import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.CoordinatorOptions;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.world.SimulatedWorld;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One scenario, end to end: the simulated cluster with a real agent per node, the hostile conditions,
 * then the real coordinator's {@code plan} or {@code rollout} against it. One Vert.x instance is shared
 * by the API client, the agents and the coordinator. Call from a plain thread; close when done.
 */
public final class SimulationRun implements AutoCloseable {
    /** How long the agents may take to publish their first attestation. */
    static final Duration FIRST_PUBLISH = Duration.ofSeconds(30);

    private final Scenario scenario;
    private final Vertx vertx;
    private final SimulatedWorld cluster;

    private SimulationRun(Scenario scenario, Vertx vertx, SimulatedWorld cluster) {
        this.scenario = scenario;
        this.vertx = vertx;
        this.cluster = cluster;
    }

    /**
     * Builds the cluster as the deploy job finds it: agents running and attesting, hostile conditions
     * written.
     *
     * @param events told of every simulated platform event as it happens
     */
    public static SimulationRun prepare(Scenario scenario, Consumer<SimEvent> events)
            throws TimeoutException, InterruptedException {
        return prepare(scenario, events, Agents.REAL);
    }

    /** Which agent runs on the simulated nodes. */
    public enum Agents {
        /** The real agent per node ({@link RealAgentLauncher}): the end-to-end check. */
        REAL,
        /** The agent's evaluation and signer once per boot ({@link OneShotAgentLauncher}): scale runs. */
        ONE_SHOT
    }

    /** As {@link #prepare(Scenario, Consumer)}, with the given agents. */
    public static SimulationRun prepare(Scenario scenario, Consumer<SimEvent> events, Agents agents)
            throws TimeoutException, InterruptedException {
        Vertx vertx = UnhandledErrors.on(Vertx.vertx());
        SimulatedWorld cluster = null;
        try {
            cluster = SimulatedWorld.create(scenario, vertx, (api, keys) -> agents == Agents.ONE_SHOT
                    ? new OneShotAgentLauncher(api.client(), keys)
                    : new RealAgentLauncher(vertx, api.inCluster().podEnvironment(), keys,
                            RealAgentLauncher.procPollFor(scenario.nodes().size())));
            cluster.onEvent(events);
            cluster.startAgents();
            cluster.awaitAgentsPublished(FIRST_PUBLISH);
            cluster.writeHostileAttestations();
            return new SimulationRun(scenario, vertx, cluster);
        } catch (RuntimeException | TimeoutException | InterruptedException e) {
            if (cluster != null) {
                cluster.close();
            }
            vertx.close();
            throw e;
        }
    }

    public SimulatedWorld cluster() {
        return cluster;
    }

    /** The coordinator's read-only classification. */
    public Report plan(ProgressListener progress) throws InterruptedException, TimeoutException {
        return await(coordinator(progress, null).plan());
    }

    /** The coordinator's rollout; the scenario's config updates start with it. */
    public Report rollout(ProgressListener progress) throws InterruptedException, TimeoutException {
        return rollout(progress, e -> { });
    }

    /** Like {@link #rollout(ProgressListener)}, telling {@code events} every typed event of the run (what tests wait on). */
    public Report rollout(ProgressListener progress, Consumer<RunEvent> events) throws InterruptedException, TimeoutException {
        Coordinator coordinator = coordinator(progress, events);
        cluster.beginRun();
        return await(coordinator.rollout());
    }

    private Coordinator coordinator(ProgressListener progress, Consumer<RunEvent> events) {
        return new Coordinator(vertx, cluster.client(), cluster.keys().trust(), CoordinatorFlags.desired(scenario),
                CoordinatorFlags.settings(scenario), new SimRebootDriver(cluster), progress,
                new CoordinatorOptions(CoordinatorFlags.gates(scenario, cluster), null, events));
    }

    private Report await(Future<Report> report) throws InterruptedException, TimeoutException {
        Duration bound = CoordinatorFlags.runBound(scenario);
        try {
            return report.toCompletionStage().toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException("the coordinator failed: " + cause.getMessage(), cause);
        }
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } finally {
            closeVertx();
        }
    }

    /**
     * A worker task still in a Kubernetes call (the API server is already gone) can hold Vert.x's close
     * past any useful wait; the run's result is decided by then, so a slow close is reported, not thrown.
     */
    private void closeVertx() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        } catch (CompletionException e) {
            if (!(e.getCause() instanceof TimeoutException)) {
                throw e;
            }
            System.err.println("crifresh-sim: Vert.x did not close within 10 s after the run; continuing");
        }
    }
}
