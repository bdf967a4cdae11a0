package dev.crifresh.coordinator;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryHosts;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.LeaseSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.MarkerRule;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.kube.Fabric8EventOps;
import dev.crifresh.coordinator.kube.Fabric8LeaseLock;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.LeaseClient;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.rollout.run.Rollout;
import dev.crifresh.coordinator.rollout.run.RunContext;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;

/**
 * The coordinator, embeddable: the CLI and the simulator both run it through this class.
 * {@link #plan()} classifies every selected node and changes nothing; {@link #rollout()} runs the
 * {@link Rollout} state machine. Both may be called from any thread; the work runs on one Vert.x
 * context of {@code vertx}, blocking Kubernetes calls and the reboot driver on its worker threads.
 */
public final class Coordinator {
    public static final String LEASE_NAME = "crifresh-rollout";

    private final Vertx vertx;
    private final Context context;
    private final KubernetesClient client;
    private final CoordinatorSettings settings;
    private final RebootDriver driver;
    private final ProgressListener progress;
    private final NodeClassifier classifier;
    private final Clock clock = Clock.systemUTC();
    private final CoordinatorOptions options;
    private volatile Rollout running;
    private volatile KubernetesClient leaseClient;

    /**
     * @param trust   the trusted attestation keys and the fingerprint HMAC key
     * @param desired the credential the nodes' containerd must have loaded for {@code settings.registry()}
     * @param driver  requests reboots (unused with {@link Action#NONE})
     * @param options gates, silences and a tap on the run's events ({@link CoordinatorOptions#none()} for none)
     */
    public Coordinator(Vertx vertx, KubernetesClient client, TrustBundle trust, RegistryAuth desired,
                       CoordinatorSettings settings, RebootDriver driver, ProgressListener progress, CoordinatorOptions options) {
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.client = client;
        this.settings = settings;
        this.driver = driver;
        this.progress = progress == null ? ProgressListener.NONE : progress;
        this.options = options == null ? CoordinatorOptions.none() : options;
        String registry = RegistryHosts.normalise(settings.selection().registry());
        RegistryAuth forRegistry = new RegistryAuth(registry, desired.username(), desired.password(), desired.identityToken());
        String fingerprint = CredentialFingerprint.of(trust.fingerprintKey(), forRegistry);
        this.classifier = new NodeClassifier(new AttestationVerifier(trust, settings.selection().clockSkew()), registry,
                fingerprint, new MarkerRule(settings.marker().annotation(), settings.marker().currentValue()));
    }

    public CoordinatorSettings settings() {
        return settings;
    }

    /** Classifies every selected node and reports what {@link #rollout()} would do. Never writes anything. */
    public Future<Report> plan() {
        Promise<Report> promise = Promise.promise();
        context.runOnContext(v -> new PlanMode(vertx, context, client, settings, classifier, options.gates(), clock, apiHost()).run()
                .onComplete(promise));
        return promise.future();
    }

    /** The host of the API server URL this coordinator uses, or null. */
    private String apiHost() {
        try {
            return client.getMasterUrl().getHost();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Runs the rollout (see {@link Rollout} for the steps). */
    public Future<Report> rollout() {
        Promise<Report> promise = Promise.promise();
        context.runOnContext(v -> {
            KubernetesClient leaseClient = LeaseClient.of(vertx, client, settings.lease().leaseDuration());
            this.leaseClient = leaseClient;
            Rollout rollout = new Rollout(runContext(leaseClient));
            running = rollout;
            rollout.run().onComplete(ar -> context.<Void>executeBlocking(() -> {
                leaseClient.close();
                return null;
            }, false).onComplete(closed -> promise.handle(ar)));
        });
        return promise.future();
    }

    /** The run's context: its I/O built from the selection and Lease records, the options given at construction. */
    private RunContext runContext(KubernetesClient leaseClient) {
        LeaseSettings lease = settings.lease();
        RunContext.Io io = new RunContext.Io(
                new Fabric8NodeOps(context, client, settings.selection().nodeSelector()),
                new Fabric8PodOps(context, client, settings.selection().podFieldSelector()),
                new Fabric8LeaseLock(context, leaseClient, lease.namespace(), LEASE_NAME, leaseHolder(lease.runId()),
                        lease.leaseDuration(), clock),
                new Fabric8EventOps(context, client), driver);
        RunContext.Options runOptions = new RunContext.Options(
                options.gates().build(vertx, context, client, lease.runId(), progress), options.silences(), apiHost(),
                options.runEvents());
        return new RunContext(vertx, context, io, classifier, settings, progress, clock, runOptions);
    }

    /**
     * The Lease holder identity: the run id and a random suffix of this process. Two processes started with the
     * same {@code --run-id} (a re-run CI job keeps its run id) must not both count as the Lease's holder.
     */
    static String leaseHolder(String runId) {
        byte[] nonce = new byte[4];
        NONCE.nextBytes(nonce);
        return runId + "/" + HexFormat.of().formatHex(nonce);
    }

    private static final SecureRandom NONCE = new SecureRandom();

    /**
     * Drops the connections of a running rollout's own Lease client at once, without any API call, as a killed
     * process loses them; the rollout's future does not complete after it. For an embedder that abandons a run
     * together with its client and Vert.x (the tests' crashed runs): the Lease client's watch would otherwise try
     * to reconnect through the closed Vert.x.
     */
    public void abandon() {
        KubernetesClient c = leaseClient;
        if (c != null) {
            c.close();
        }
    }

    /**
     * Interrupts a running rollout: nothing new starts, nodes in progress keep their ownership
     * annotations for a rerun to resume, the Lease is released and {@link #rollout()}'s future completes
     * with an interrupted report (exit 1).
     */
    public void stop() {
        context.runOnContext(v -> {
            Rollout r = running;
            if (r != null) {
                r.interrupt();
            }
        });
    }
}
