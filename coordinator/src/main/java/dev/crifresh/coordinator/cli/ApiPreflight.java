package dev.crifresh.coordinator.cli;

import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.Coordinator;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Before a run reads anything else or takes the rollout Lease: one cheap request per kind of access the run
 * needs, so that "cannot reach the server", "TLS failed", "401" and "403 (which RBAC verb)" are told apart up
 * front and never mistaken for a Lease held by another run. An unreachable server (connection refused or
 * timed out, unknown host) is retried until {@code --connect-timeout} has passed, then {@link ApiUnreachableException}
 * (exit 5); TLS, 401 and 403 are configuration mistakes, reported at once as {@link UsageException} (exit 2).
 * The probes run on a Vert.x worker and the waits between them are Vert.x timers ({@link #RETRY}); the CLI's main
 * thread only waits for the answer, before any run starts.
 */
final class ApiPreflight {
    /** One request and the RBAC permission it needs. */
    record Probe(String verb, String resource, String namespace, Consumer<KubernetesClient> call) {
        String permission() {
            return "'" + verb + "' on " + resource + (namespace == null ? " (cluster scope)" : " in namespace " + namespace);
        }
    }

    /**
     * An RBAC permission a run needs later (after it has cordoned a node, say), asked of the API server up front
     * with a SelfSubjectAccessReview: only an explicit "not allowed" stops the run; no answer (an API server or a
     * mock that does not evaluate reviews, no permission to ask) is no finding.
     */
    record Permission(String verb, String group, String resource, String subresource, String namespace, String name) {
        String describe() {
            String r = (group.isEmpty() ? resource : resource + "." + group) + (subresource == null ? "" : "/" + subresource);
            return "'" + verb + "' on " + r + (name == null ? "" : " " + name) + (namespace == null ? " (cluster scope)" : " in namespace " + namespace);
        }
    }

    private ApiPreflight() {
    }

    /** What a rollout does besides reading: watch and patch nodes, list pods, evict them, create and renew the Lease. */
    static List<Permission> rolloutPermissions(String leaseNamespace, boolean reboots) {
        List<Permission> needed = new ArrayList<>(List.of(
                new Permission("watch", "", "nodes", null, null, null),
                new Permission("create", "coordination.k8s.io", "leases", null, leaseNamespace, null),
                new Permission("update", "coordination.k8s.io", "leases", null, leaseNamespace, Coordinator.LEASE_NAME)));
        if (reboots) {
            needed.add(new Permission("patch", "", "nodes", null, null, null));
            needed.add(new Permission("list", "", "pods", null, null, null));
            needed.add(new Permission("create", "", "pods", "eviction", null, null));
        }
        return needed;
    }

    /**
     * @throws UsageException naming the first permission the API server says is not granted
     */
    static void review(KubernetesClient client, ClusterTarget target, List<Permission> permissions) {
        for (Permission p : permissions) {
            SelfSubjectAccessReview answer;
            try {
                answer = client.authorization().v1().selfSubjectAccessReview().create(new SelfSubjectAccessReviewBuilder()
                        .withNewSpec().withNewResourceAttributes().withVerb(p.verb()).withGroup(p.group()).withResource(p.resource())
                        .withSubresource(p.subresource()).withNamespace(p.namespace()).withName(p.name()).endResourceAttributes()
                        .endSpec().build());
            } catch (KubernetesClientException e) {
                return; // cannot ask: the run finds out when it gets there
            }
            SubjectAccessReviewStatus status = answer == null ? null : answer.getStatus();
            if (status != null && Boolean.FALSE.equals(status.getAllowed()) && status.getEvaluationError() == null) {
                throw new UsageException(target.server() + ": " + who(target) + " may not " + p.verb() + " " + p.resource()
                        + (p.subresource() == null ? "" : "/" + p.subresource()) + "; missing RBAC permission " + p.describe()
                        + (status.getReason() == null || status.getReason().isEmpty() ? "" : " (server: " + status.getReason() + ")"));
            }
        }
    }

    /** {@code plan}: list nodes. */
    static List<Probe> plan() {
        return List.of(listNodes());
    }

    /** {@code rollout}: list nodes, and read the rollout Lease in its namespace. */
    static List<Probe> rollout(String leaseNamespace) {
        return List.of(listNodes(), new Probe("get", "leases.coordination.k8s.io", leaseNamespace,
                c -> c.leases().inNamespace(leaseNamespace).withName(Coordinator.LEASE_NAME).get()));
    }

    private static Probe listNodes() {
        return new Probe("list", "nodes", null, c -> c.nodes().list(new ListOptionsBuilder().withLimit(1L).build()));
    }

    /** How the check waits between attempts (250 ms doubling to 2 s, never past {@code --connect-timeout}). */
    static final RetryPolicy RETRY = RetryPolicy.doubling(Duration.ofMillis(250), Duration.ofSeconds(2));

    /**
     * How the check sends its probes and waits: the monotonic clock, a one-shot timer, and a probe sent off the
     * calling thread. A test drives it on a manual clock.
     */
    record Runner(LongSupplier nanoTime, BiConsumer<Duration, Runnable> timer, Function<Probe, Future<?>> send) {
        /** Probes on a Vert.x worker (fabric8's calls block), waits on Vert.x timers. */
        static Runner of(Vertx vertx, KubernetesClient client) {
            return new Runner(System::nanoTime, (delay, action) -> vertx.setTimer(Math.max(1, delay.toMillis()), id -> action.run()),
                    probe -> vertx.executeBlocking(() -> {
                        probe.call().accept(client);
                        return null;
                    }));
        }
    }

    /**
     * Runs {@link #check(Runner, ClusterTarget, Duration, List, Consumer)} on {@code vertx} and waits for its answer on
     * the calling thread (the CLI's main thread, which has nothing to do until the server is known to answer).
     *
     * @throws ApiUnreachableException when the server could not be reached within {@code connectTimeout}
     * @throws UsageException          on TLS failure, 401 or 403
     */
    static void check(Vertx vertx, KubernetesClient client, ClusterTarget target, Duration connectTimeout, List<Probe> probes,
                      Consumer<String> progress) {
        try {
            check(Runner.of(vertx, client), target, connectTimeout, probes, progress).toCompletionStage().toCompletableFuture().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the API server", e);
        }
    }

    /**
     * Sends each probe in turn; an unreachable server is asked again on a timer ({@link #RETRY}) until
     * {@code connectTimeout} has passed since the check began.
     *
     * @param progress told once when the server cannot be reached and the check keeps trying
     * @return fails with {@link ApiUnreachableException} when the server could not be reached within
     *         {@code connectTimeout}, with {@link UsageException} on TLS failure, 401 or 403
     */
    static Future<Void> check(Runner runner, ClusterTarget target, Duration connectTimeout, List<Probe> probes,
                              Consumer<String> progress) {
        Promise<Void> done = Promise.promise();
        new Attempts(runner, target, connectTimeout, probes, progress, runner.nanoTime().getAsLong() + connectTimeout.toNanos(), done)
                .send(0, 1);
        return done.future();
    }

    /** One check in progress: the probe to send next, and the attempt count that sets the next delay. */
    private static final class Attempts {
        private final Runner runner;
        private final ClusterTarget target;
        private final Duration connectTimeout;
        private final List<Probe> probes;
        private final Consumer<String> progress;
        private final long deadline;
        private final Promise<Void> done;
        private boolean told;

        Attempts(Runner runner, ClusterTarget target, Duration connectTimeout, List<Probe> probes, Consumer<String> progress,
                 long deadline, Promise<Void> done) {
            this.runner = runner;
            this.target = target;
            this.connectTimeout = connectTimeout;
            this.probes = probes;
            this.progress = progress;
            this.deadline = deadline;
            this.done = done;
        }

        /** Sends probe {@code index}; {@code attempt} counts the failures so far, plus one, across all probes. */
        void send(int index, int attempt) {
            if (index == probes.size()) {
                done.complete();
                return;
            }
            Probe probe = probes.get(index);
            runner.send().apply(probe).onComplete(ar -> {
                if (ar.succeeded()) {
                    send(index + 1, attempt);
                } else if (ar.cause() instanceof KubernetesClientException e) {
                    failed(index, attempt, probe, e);
                } else {
                    done.fail(ar.cause());
                }
            });
        }

        private void failed(int index, int attempt, Probe probe, KubernetesClientException e) {
            ApiProblem problem = ApiProblem.of(e);
            switch (problem.kind()) {
                case UNREACHABLE -> {
                    Optional<Duration> retry = RETRY.next(attempt, Duration.ofNanos(deadline - runner.nanoTime().getAsLong()));
                    if (retry.isEmpty()) {
                        done.fail(new ApiUnreachableException("cannot reach " + target.server() + ": " + problem.detail()
                                + "; gave up after --connect-timeout " + DurationText.format(connectTimeout)
                                + " (" + target.source() + ")", e));
                        return;
                    }
                    if (!told) {
                        progress.accept("cannot reach " + target.server() + ": " + problem.detail() + "; trying for up to "
                                + DurationText.format(connectTimeout) + " (--connect-timeout)");
                        told = true;
                    }
                    runner.timer().accept(retry.get(), () -> send(index, attempt + 1));
                }
                case TLS -> done.fail(new UsageException("cannot reach " + target.server() + ": " + problem.detail()
                        + " (check the cluster's certificate-authority in " + target.source() + ")", e));
                case UNAUTHORIZED -> done.fail(new UsageException(target.server() + " rejected the credentials of "
                        + who(target) + ": 401 " + problem.detail(), e));
                case FORBIDDEN -> done.fail(new UsageException(target.server() + ": 403 Forbidden: " + who(target)
                        + " may not " + probe.verb() + " " + probe.resource() + "; missing RBAC permission "
                        + probe.permission() + " (server: " + problem.detail() + ")", e));
                case OTHER -> done.fail(e);
                default -> throw new IllegalStateException("unhandled API problem " + problem.kind());
            }
        }
    }

    private static String who(ClusterTarget target) {
        return target.context() == null ? "the service account" : "context " + target.context() + " (" + target.source() + ")";
    }
}
