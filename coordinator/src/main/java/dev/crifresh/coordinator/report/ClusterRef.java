package dev.crifresh.coordinator.report;

import java.util.Objects;

/**
 * The cluster a run talked to, as its report names it.
 *
 * @param server  the API server's URL
 * @param context the kubeconfig context, or null for the in-cluster service account
 * @param source  where the configuration came from ({@code --kubeconfig FILE}, {@code in-cluster service account}, ...)
 */
public record ClusterRef(String server, String context, String source) {
    public ClusterRef {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(source, "source");
    }

    /** {@code https://… (context ci, --kubeconfig /path)}. */
    public String describe() {
        return server + " (" + (context == null ? "" : "context " + context + ", ") + source + ")";
    }
}
