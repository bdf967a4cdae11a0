package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.Coordinator;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
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

    private ApiPreflight() {
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
                                        + "; gave up after --connect-timeout " + dev.crifresh.common.text.DurationText.format(connectTimeout)
                                        + " (" + target.source() + ")", e);
                            }
                            if (!told) {
                                progress.accept("cannot reach " + target.server() + ": " + problem.detail() + "; trying for up to "
                                        + dev.crifresh.common.text.DurationText.format(connectTimeout) + " (--connect-timeout)");
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
