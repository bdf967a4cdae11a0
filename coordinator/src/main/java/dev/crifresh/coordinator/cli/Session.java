package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.CoordinatorOptions;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Model.CommandSpec;

/** One CLI run's Vert.x, Kubernetes client and inputs; closed at the end. */
final class Session implements AutoCloseable {
    final Vertx vertx;
    final KubernetesClient client;
    final TrustBundle trust;
    final RegistryAuth desired;
    final ClusterTarget target;
    private final PrintWriter err;
    private final RunLog.Format logFormat;

    private Session(Vertx vertx, KubernetesClient client, TrustBundle trust, RegistryAuth desired, ClusterTarget target,
                    PrintWriter err, RunLog.Format logFormat) {
        this.vertx = vertx;
        this.target = target;
        this.client = client;
        this.trust = trust;
        this.desired = desired;
        this.err = err;
        this.logFormat = logFormat;
    }

    /**
     * Resolves the cluster and names it on the run's first log line, checks that the API server can be reached and
     * allows what {@code probes} need ({@link ApiPreflight}), then reads the trust bundle and the credential.
     */
    static Session open(ReportOptions options, CommandSpec spec, CoordinatorSettings settings, List<ApiPreflight.Probe> probes) {
        return open(options, spec, settings, probes, List.of());
    }

    /** {@link #open(ReportOptions, CommandSpec, CoordinatorSettings, List)}, also asking for the RBAC {@code permissions} the run needs later. */
    static Session open(ReportOptions options, CommandSpec spec, CoordinatorSettings settings, List<ApiPreflight.Probe> probes,
                        List<ApiPreflight.Permission> permissions) {
        ClusterTarget target = options.cluster.target();
        PrintWriter err = spec.commandLine().getErr();
        RunLog log = new RunLog(err, options.logFormat, settings.lease().runId(), Clock.systemUTC());
        log.line("cluster " + target.describe());
        Vertx vertx = UnhandledErrors.on(Vertx.vertx());
        KubernetesClient client = null;
        try {
            client = options.cluster.connect(vertx, target);
            ApiPreflight.check(vertx, client, target, options.cluster.connectTimeout(), probes,
                    text -> log.log(ProgressListener.Level.WARN, text));
            ApiPreflight.review(client, target, permissions);
            TrustBundle trust = options.trust.load(client);
            RegistryAuth desired = options.credential.load(client, options.registry);
            return new Session(vertx, client, trust, desired, target, err, options.logFormat);
        } catch (RuntimeException e) {
            if (client != null) {
                client.close();
            }
            vertx.close();
            throw e;
        }
    }

    Coordinator coordinator(CoordinatorSettings settings, RebootDriver driver, CoordinatorOptions options) {
        return new Coordinator(vertx, client, trust, desired, settings, driver, log(settings), options);
    }

    /** The run's log on stderr, every line with the run id. */
    RunLog log(CoordinatorSettings settings) {
        return new RunLog(err, logFormat, settings.lease().runId(), Clock.systemUTC());
    }

    static <T> T await(Future<T> future) throws Exception {
        return await(future.toCompletionStage().toCompletableFuture());
    }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        client.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // exiting anyway
        }
    }
}
