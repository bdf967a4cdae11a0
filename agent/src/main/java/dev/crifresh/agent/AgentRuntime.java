package dev.crifresh.agent;

import dev.crifresh.agent.expire.ExpiryController;
import dev.crifresh.agent.expire.ExpirySettings;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.cri.CriStatusClient;
import dev.crifresh.agent.cri.RuntimeAuthProbe;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.http.AgentHttpServer;
import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.agent.kube.ExpiryApi;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.kube.ReadyTap;
import dev.crifresh.agent.loop.AgentLoop;
import dev.crifresh.agent.loop.Evaluator;
import dev.crifresh.agent.loop.KubeletReadings;
import dev.crifresh.agent.loop.ProofFallback;
import dev.crifresh.agent.introspect.IntrospectionCheck;
import dev.crifresh.agent.introspect.IntrospectionClient;
import dev.crifresh.agent.publish.ConditionPublisher;
import dev.crifresh.agent.publish.PublishedAttestation;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.retry.RetryPolicy;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running agent: the evaluator loop, the condition publisher and (optionally) the HTTP server,
 * all on one Vert.x context. Several runtimes may share one {@link Vertx} (the simulator runs one per
 * simulated node, each on its own {@link NodeApi}).
 */
public final class AgentRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRuntime.class);
    /** How long one CRI Status call may take (the opt-in runtime-status proof); then today's rules decide. */
    static final Duration CRI_STATUS_TIMEOUT = Duration.ofSeconds(5);
    private volatile RuntimeAuthProbe runtimeProbe;
    private volatile IntrospectionCheck introspection;
    private volatile ExpiryController expiry;

    private final AgentSettings settings;
    private final AgentLoop loop;
    private final ConditionPublisher publisher;
    private final AgentMetrics metrics;
    private volatile AgentHttpServer http;
    private volatile Future<Void> stopping;

    private AgentRuntime(AgentSettings settings, AgentLoop loop, ConditionPublisher publisher, AgentMetrics metrics) {
        this.settings = settings;
        this.loop = loop;
        this.publisher = publisher;
        this.metrics = metrics;
    }

    /**
     * Starts an agent on {@code api} (the DaemonSet's in-cluster {@code VertxNodeApi}, or
     * {@code Fabric8NodeApi} on a kubeconfig). The returned future completes once the HTTP server listens
     * (if any), the Node watch and the file watcher are set up and the first evaluation was requested;
     * publishing continues in the background (an unreachable API is retried, never fatal).
     *
     * @param fingerprintKey the credential-fingerprint HMAC key; null publishes no registry fingerprints
     * @param clock          every clock read of this agent goes through it
     */
    public static Future<AgentRuntime> start(Vertx vertx, NodeApi api, AgentSettings settings, SigningKey key,
                                             byte[] fingerprintKey, HostClock clock) {
        return start(vertx, api, settings, key, fingerprintKey, clock, NodeApi.RETRY, null);
    }

    /**
     * An agent that is also a candidate for the expiry leader ({@link ExpiryController}): with its Lease held, it
     * marks every Node's condition that outlived its attestation {@code Unknown}/{@code AttestationExpired}.
     *
     * @param expiryApi the calls of the expiry leader (in-cluster: the same {@code VertxNodeApi} as {@code api})
     * @param expiry    where the Lease is and how often to look; null: not a candidate
     */
    public static Future<AgentRuntime> start(Vertx vertx, NodeApi api, AgentSettings settings, SigningKey key,
            byte[] fingerprintKey, HostClock clock, ExpiryApi expiryApi, ExpirySettings expiry) {
        return start(vertx, api, settings, key, fingerprintKey, clock, NodeApi.RETRY,
                expiry == null ? null : new Expiry(Objects.requireNonNull(expiryApi, "expiryApi"), expiry));
    }

    /** The expiry candidate's API and settings. */
    record Expiry(ExpiryApi api, ExpirySettings settings) {
    }

    static Future<AgentRuntime> start(Vertx vertx, NodeApi api, AgentSettings settings, SigningKey key,
                                      byte[] fingerprintKey, HostClock clock, RetryPolicy backoff) {
        return start(vertx, api, settings, key, fingerprintKey, clock, backoff, null);
    }

    static Future<AgentRuntime> start(Vertx vertx, NodeApi api, AgentSettings settings, SigningKey key,
                                      byte[] fingerprintKey, HostClock clock, RetryPolicy backoff, Expiry expiry) {
        Objects.requireNonNull(key, "signing key");
        Context context = vertx.getOrCreateContext();
        AgentMetrics metrics = new AgentMetrics();
        metrics.heartbeatInterval(settings.heartbeat());
        HostReader reader = new HostReader(settings.procRoot(), settings.hostRoot(), settings.watchGlobs(),
                settings.matcher(), clock, settings.mounts());
        RuntimeAuthProbe runtimeProbe = settings.criSocket() == null ? null
                : new RuntimeAuthProbe(new CriStatusClient(vertx, settings.criSocket(), CRI_STATUS_TIMEOUT));
        IntrospectionCheck introspection = !settings.containerdIntrospection() ? null : new IntrospectionCheck(
                new IntrospectionClient(vertx, IntrospectionClient.DEFAULT_DEADLINE), settings.hostRoot());
        // The kubelet witness reads the Ready condition from the publisher's watch of the own Node.
        KubeletReadings kubelet = new KubeletReadings();
        Evaluator evaluator = new Evaluator(reader, settings.rules(), fingerprintKey, settings.containerdGeneration(),
                runtimeProbe, introspection, kubelet::current);
        ConditionPublisher publisher = new ConditionPublisher(vertx, context, new ReadyTap(api, kubelet::seen), settings,
                new AttestationSigner(key), clock, metrics, backoff);
        AgentLoop loop = new AgentLoop(vertx, context, settings, evaluator, (assessment, heartbeat, change) -> {
            metrics.evaluated(assessment.evaluation(), assessment.observation().files());
            if (runtimeProbe != null) {
                metrics.proofRequested(ProofFallback.RUNTIME_STATUS, assessment.fallback());
            }
            publisher.offer(assessment, heartbeat, change);
        });
        kubelet.onChange(() -> loop.evaluateSoon("the kubelet's Ready condition changed"));
        AgentRuntime runtime = new AgentRuntime(settings, loop, publisher, metrics);
        runtime.runtimeProbe = runtimeProbe;
        runtime.introspection = introspection;
        runtime.expiry = expiry == null ? null
                : new ExpiryController(vertx, context, expiry.api(), expiry.settings(), clock::wallNow);
        Future<Void> httpStarted = settings.metricsPort() < 0 ? Future.succeededFuture()
                : AgentHttpServer.start(vertx, settings.metricsPort(), metrics, publisher::ready,
                        () -> publisher.published().map(PublishedAttestation::claimsJson))
                .map(server -> {
                    runtime.http = server;
                    return null;
                });
        // The first attestation after a boot is on the rollout's critical path: the Node watch and then the
        // file watcher and the first evaluation start beside the HTTP server's bind instead of after it (a port
        // conflict still fails the start). join, not all: on a failure every part has finished before stop()
        // closes it.
        Future<Void> looping = publisher.start().compose(v -> loop.start()).onSuccess(v -> {
            if (runtime.expiry != null) {
                runtime.expiry.start();
            }
        });
        return Future.join(looping, httpStarted)
                .map(v -> {
                    LOG.info("[{}] agent {} started: proc root {}, host root {}, watching {}, metrics port {}",
                            settings.nodeName(), settings.agentVersion(), settings.procRoot(), settings.hostRoot(),
                            settings.watchGlobs(), runtime.metricsPort());
                    return runtime;
                })
                .recover(failure -> runtime.stop().transform(ignored -> Future.failedFuture(failure)));
    }

    /**
     * Stops evaluating, watching and publishing (and competing for the expiry Lease) and closes the HTTP server.
     * The condition stays on the Node as last written: it expires by itself ({@code exp}), the expiry leader then
     * marks it Unknown, and a replacement agent takes over.
     */
    public synchronized Future<Void> stop() {
        if (stopping == null) {
            ExpiryController candidate = expiry;
            stopping = (candidate == null ? Future.<Void>succeededFuture() : candidate.stop())
                    .eventually(() -> loop.stop())
                    .eventually(() -> publisher.stop())
                    .eventually(() -> http == null ? Future.succeededFuture() : http.close())
                    .eventually(() -> {
                        if (runtimeProbe != null) {
                            runtimeProbe.close();
                        }
                        if (introspection != null) {
                            introspection.close();
                        }
                        return Future.succeededFuture();
                    })
                    .onComplete(ar -> LOG.info("[{}] agent stopped", settings.nodeName()));
        }
        return stopping;
    }

    /** The HTTP port actually bound, or -1 when there is no HTTP server. */
    public int metricsPort() {
        AgentHttpServer server = http;
        return server == null ? -1 : server.port();
    }

    /** Whether a condition has been published (what /readyz reports). */
    public boolean ready() {
        return publisher.ready();
    }

    /** The last attestation written to the Node. */
    public Optional<PublishedAttestation> published() {
        return publisher.published();
    }

    public AgentMetrics metrics() {
        return metrics;
    }
}
