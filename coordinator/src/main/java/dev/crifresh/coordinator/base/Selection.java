package dev.crifresh.coordinator.base;

import java.time.Duration;

/**
 * Which nodes and pods the run sees, and how it reads their attestations; read by the composition root, which builds
 * the node and pod operations and the classifier from it.
 *
 * @param registry         the registry whose credential must be loaded, e.g. {@code ghcr.io} ({@code --registry})
 * @param nodeSelector     label selector for the nodes to consider, null = all nodes ({@code --node-selector})
 * @param podFieldSelector list a node's pods with the field selector {@code spec.nodeName} (true on real clusters);
 *                         false lists all pods and filters locally — fabric8's mock server cannot filter on
 *                         {@code spec.nodeName}
 * @param clockSkew        tolerated clock skew when checking attestation iat/exp
 */
public record Selection(String registry, String nodeSelector, boolean podFieldSelector, Duration clockSkew) {
    public Selection {
        SettingsChecks.require(registry != null && !registry.isBlank(), "--registry is empty");
        SettingsChecks.require(clockSkew != null && !clockSkew.isNegative(), "clock skew must not be negative");
        if (nodeSelector != null && nodeSelector.isBlank()) {
            nodeSelector = null;
        }
    }
}
