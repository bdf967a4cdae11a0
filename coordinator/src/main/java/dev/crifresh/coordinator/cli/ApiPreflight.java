package dev.crifresh.coordinator.cli;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.Coordinator;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Before a run reads anything else or takes the rollout Lease: one cheap request per kind of access the run
 * needs, so that "cannot reach the server", "TLS failed", "401" and "403 (which RBAC verb)" are told apart up
 * front and never mistaken for a Lease held by another run. An unreachable server (connection refused or
 * timed out, unknown host) is retried until {@code --connect-timeout} has passed, then {@link ApiUnreachableException}
 * (exit 5); TLS, 401 and 403 are configuration mistakes, reported at once as {@link UsageException} (exit 2).
 * Runs on the calling (CLI main) thread, never on an event loop.
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

    /**
     * @param progress told once when the server cannot be reached and the check keeps trying
     * @throws ApiUnreachableException when the server could not be reached within {@code connectTimeout}
     * @throws UsageException          on TLS failure, 401 or 403
     */
    static void check(KubernetesClient client, ClusterTarget target, Duration connectTimeout, List<Probe> probes,
                      Consumer<String> progress) {
        long deadline = System.nanoTime() + connectTimeout.toNanos();
        boolean told = false;
        long backoffMillis = 250;
        for (Probe probe : probes) {
            while (true) {
                try {
                    probe.call().accept(client);
                    break;
                } catch (KubernetesClientException e) {
                    ApiProblem problem = ApiProblem.of(e);
                    switch (problem.kind()) {
                        case UNREACHABLE -> {
                            long left = deadline - System.nanoTime();
                            if (left <= 0) {
                                throw new ApiUnreachableException("cannot reach " + target.server() + ": " + problem.detail()
                                        + "; gave up after --connect-timeout " + DurationText.format(connectTimeout)
                                        + " (" + target.source() + ")", e);
                            }
                            if (!told) {
                                progress.accept("cannot reach " + target.server() + ": " + problem.detail() + "; trying for up to "
                                        + DurationText.format(connectTimeout) + " (--connect-timeout)");
                                told = true;
                            }
                            sleep(Math.min(backoffMillis, Math.max(1, left / 1_000_000)));
                            backoffMillis = Math.min(backoffMillis * 2, 2_000);
                        }
                        case TLS -> throw new UsageException("cannot reach " + target.server() + ": " + problem.detail()
                                + " (check the cluster's certificate-authority in " + target.source() + ")", e);
                        case UNAUTHORIZED -> throw new UsageException(target.server() + " rejected the credentials of "
                                + who(target) + ": 401 " + problem.detail(), e);
                        case FORBIDDEN -> throw new UsageException(target.server() + ": 403 Forbidden: " + who(target)
                                + " may not " + probe.verb() + " " + probe.resource() + "; missing RBAC permission "
                                + probe.permission() + " (server: " + problem.detail() + ")", e);
                        case OTHER -> throw e;
                    }
                }
            }
        }
    }

    private static String who(ClusterTarget target) {
        return target.context() == null ? "the service account" : "context " + target.context() + " (" + target.source() + ")";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the API server", e);
        }
    }
}
