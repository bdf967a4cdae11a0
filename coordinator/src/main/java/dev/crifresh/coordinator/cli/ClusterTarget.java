package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.report.ClusterRef;
import io.fabric8.kubernetes.client.Config;

/**
 * The cluster a run talks to, resolved from {@code --kubeconfig}/{@code --context} and the environment before
 * any request is sent. Every run names it on its first line and in its report, so a run against the wrong
 * cluster is visible at once.
 *
 * @param config  fabric8's client configuration for it
 * @param server  the API server's URL
 * @param context the kubeconfig context, or null for the in-cluster service account
 * @param source  where it came from: {@code --kubeconfig FILE}, {@code $KUBECONFIG FILE}, {@code ~/.kube/config FILE}
 *                or {@code in-cluster service account}
 */
public record ClusterTarget(Config config, String server, String context, String source) {

    /** {@code https://… (context ci, --kubeconfig /path)}. */
    public String describe() {
        return ref().describe();
    }

    /** The cluster as the report shows it. */
    public ClusterRef ref() {
        return new ClusterRef(server, context, source);
    }
}
