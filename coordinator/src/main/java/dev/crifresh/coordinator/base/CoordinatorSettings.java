package dev.crifresh.coordinator.base;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.kube.ConditionContract;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Every rollout flag as a typed value. Build from {@link #defaults()} and the {@code with…} methods.
 *
 * @param registry           the registry whose credential must be loaded, e.g. {@code ghcr.io}
 * @param maxUnavailable     {@code "1"} or {@code "25%"} of the selected nodes (see {@link MaxUnavailable})
 * @param action             reboot stale nodes, or (Talos ≥ 1.14) only wait for them to turn fresh
 * @param configTimeout      how long config-pending nodes may take to hold the desired credential
 * @param drainTimeout       how long one node's drain may take (PDB-blocked evictions included)
 * @param rebootTimeout      how long a rebooted node may take to return Ready with a new boot id
 * @param attestTimeout      how long a returned (or, with action none, a stale) node may take to attest fresh
 * @param lockTimeout        how long to wait for the rollout Lease held by someone else
 * @param leaseDuration      the Lease's duration; it is renewed every third of it
 * @param nodeSelector       label selector for the nodes to consider, null = all nodes
 * @param markerAnnotation   the machine-config marker annotation, reported and never trusted
 * @param markerCurrentValue the marker value that means "current"; null = any non-empty value
 * @param leaseNamespace     namespace of the Lease {@code crifresh-rollout}
 * @param runId              this run's id, written into ownership annotations ({@code <runId>/<phase>})
 * @param clockSkew          tolerated clock skew when checking attestation iat/exp
 * @param podFieldSelector   list a node's pods with the field selector {@code spec.nodeName} (true on real
 *                           clusters); false lists all pods and filters locally — fabric8's mock server
 *                           cannot filter on {@code spec.nodeName}
 * @param staleTaint         the taint put on stale nodes before the first drain (or off), see {@link StaleTaint}
 * @param apiOutageBudget    how long the API server may be unreachable (a reboot that takes it away) while the run
 *                           waits with no side effect; zero refuses to reboot a node that carries the API server
 * @param allowNoAttestations proceed when no selected node carries a verifiable attestation (the run then reboots
 *                           them all); false stops before the first cordon, exit 6 (NoAttestations)
 * @param drain              what a drain may evict ({@code --force}, {@code --delete-emptydir-data}) and where the
 *                           coordinator runs (never evicted, its node never rolled)
 */
public record CoordinatorSettings(
        String registry,
        String maxUnavailable,
        Action action,
        Duration configTimeout,
        Duration drainTimeout,
        Duration rebootTimeout,
        Duration attestTimeout,
        Duration lockTimeout,
        Duration leaseDuration,
        String nodeSelector,
        String markerAnnotation,
        String markerCurrentValue,
        String leaseNamespace,
        String runId,
        Duration clockSkew,
        boolean podFieldSelector,
        StaleTaint staleTaint,
        Duration apiOutageBudget,
        boolean allowNoAttestations,
        DrainRules drain) {

    public static final String DEFAULT_LEASE_NAMESPACE = "crifresh";
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    public CoordinatorSettings {
        require(registry != null && !registry.isBlank(), "--registry is empty");
        MaxUnavailable.parse(maxUnavailable);
        require(action != null, "action is missing");
        positive(configTimeout, "--config-timeout");
        positive(drainTimeout, "--drain-timeout");
        positive(rebootTimeout, "--reboot-timeout");
        positive(attestTimeout, "--attest-timeout");
        positive(lockTimeout, "--lock-timeout");
        positive(leaseDuration, "--lease-duration");
        require(markerAnnotation != null && !markerAnnotation.isBlank(), "--marker-annotation is empty");
        require(leaseNamespace != null && !leaseNamespace.isBlank(), "--namespace is empty");
        require(runId != null && RUN_ID.matcher(runId).matches(),
                "--run-id '" + runId + "' must be 1-63 letters, digits, '.', '_' or '-'");
        require(clockSkew != null && !clockSkew.isNegative(), "clock skew must not be negative");
        require(staleTaint != null, "stale taint is missing");
        require(drain != null, "drain rules are missing");
        require(apiOutageBudget != null && !apiOutageBudget.isNegative(), "--api-outage-budget must not be negative");
        if (nodeSelector != null && nodeSelector.isBlank()) {
            nodeSelector = null;
        }
        if (markerCurrentValue != null && markerCurrentValue.isEmpty()) {
            markerCurrentValue = null;
        }
    }

    public static CoordinatorSettings defaults() {
        return new CoordinatorSettings(
                ConditionContract.DEFAULT_REGISTRY,
                "1",
                Action.REBOOT,
                Duration.ofMinutes(5),
                Duration.ofMinutes(10),
                Duration.ofMinutes(10),
                Duration.ofMinutes(5),
                Duration.ofMinutes(5),
                Duration.ofSeconds(30),
                null,
                ConditionContract.DEFAULT_MARKER_ANNOTATION,
                null,
                DEFAULT_LEASE_NAMESPACE,
                newRunId(),
                AttestationVerifier.DEFAULT_SKEW,
                true,
                StaleTaint.PREFER_NO_SCHEDULE,
                Duration.ZERO,
                false,
                DrainRules.KUBECTL_DEFAULTS);
    }

    /** A fresh random run id such as {@code run-3f9a1c0e}. */
    public static String newRunId() {
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        return "run-" + HexFormat.of().formatHex(b);
    }

    public MaxUnavailable budget() {
        return MaxUnavailable.parse(maxUnavailable);
    }

    public CoordinatorSettings withRegistry(String v) {
        return new CoordinatorSettings(v, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withMaxUnavailable(String v) {
        return new CoordinatorSettings(registry, v, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withAction(Action v) {
        return new CoordinatorSettings(registry, maxUnavailable, v, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withConfigTimeout(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, v, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withDrainTimeout(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, v, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withRebootTimeout(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, v, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withAttestTimeout(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, v, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withLockTimeout(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, v, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withLeaseDuration(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, v, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withNodeSelector(String v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, v, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withMarkerAnnotation(String v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, v, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withMarkerCurrentValue(String v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, v, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withLeaseNamespace(String v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, v, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withRunId(String v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, v, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withClockSkew(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, v, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withPodFieldSelector(boolean v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, v, staleTaint, apiOutageBudget, allowNoAttestations, drain);
    }

    public CoordinatorSettings withStaleTaint(StaleTaint v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, v, apiOutageBudget, allowNoAttestations, drain);
    }

    private static void positive(Duration d, String flag) {
        require(d != null && !d.isNegative() && !d.isZero(), flag + " must be a positive duration");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    public CoordinatorSettings withAllowNoAttestations(boolean v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, v, drain);
    }

    public CoordinatorSettings withApiOutageBudget(Duration v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, v, allowNoAttestations, drain);
    }

    public CoordinatorSettings withDrain(DrainRules v) {
        return new CoordinatorSettings(registry, maxUnavailable, action, configTimeout, drainTimeout, rebootTimeout, attestTimeout, lockTimeout, leaseDuration, nodeSelector, markerAnnotation, markerCurrentValue, leaseNamespace, runId, clockSkew, podFieldSelector, staleTaint, apiOutageBudget, allowNoAttestations, v);
    }
}
