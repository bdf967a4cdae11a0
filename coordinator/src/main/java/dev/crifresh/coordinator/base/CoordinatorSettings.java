package dev.crifresh.coordinator.base;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.kube.ConditionContract;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;

/**
 * Every rollout flag as a typed value, grouped by the part that reads it (docs/internals.md, "Wiring: from a flag to
 * the part that reads it"): each part of the run receives only its record. Build with {@link #builder()} (or
 * {@link #toBuilder()}); each record checks its values, and a bad one is an {@link IllegalArgumentException} naming
 * the flag.
 *
 * @param lease     the Lease: namespace, lock timeout, duration, run id, API outage budget
 * @param timeouts  how long each wait may take: config, drain, reboot, attest, stall
 * @param limits    what the run may do: max-unavailable, action, allow-no-attestations, stale taint, drain rules
 * @param selection which nodes and pods the run sees: registry, node selector, pod field selector, clock skew
 * @param marker    the machine-config marker rule: annotation, current value
 */
public record CoordinatorSettings(LeaseSettings lease, NodeTimeouts timeouts, RunLimits limits, Selection selection,
                                  MarkerSettings marker) {

    public CoordinatorSettings {
        SettingsChecks.require(lease != null && timeouts != null && limits != null && selection != null && marker != null,
                "a settings record is missing");
    }

    /** The defaults: each flag's default value and a fresh run id. */
    public static CoordinatorSettings defaults() {
        Duration tenMinutes = Duration.ofMinutes(10);
        return new CoordinatorSettings(
                new LeaseSettings(LeaseSettings.DEFAULT_NAMESPACE, Duration.ofMinutes(5), Duration.ofSeconds(30), newRunId(),
                        Duration.ZERO),
                new NodeTimeouts(Duration.ofMinutes(5), tenMinutes, tenMinutes, Duration.ofMinutes(5), tenMinutes),
                new RunLimits("1", Action.REBOOT, false, StaleTaint.PREFER_NO_SCHEDULE, DrainRules.KUBECTL_DEFAULTS),
                new Selection(ConditionContract.DEFAULT_REGISTRY, null, true, AttestationVerifier.DEFAULT_SKEW),
                new MarkerSettings(ConditionContract.DEFAULT_MARKER_ANNOTATION, null));
    }

    /** A builder holding the defaults (a fresh run id). */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A fresh random run id such as {@code run-3f9a1c0e}. */
    public static String newRunId() {
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        return "run-" + HexFormat.of().formatHex(b);
    }

    /**
     * Sets flags one at a time, each named as its command-line flag; {@link #build()} builds and checks the records
     * (each record's constructor names the flag of a bad value).
     */
    public static final class Builder {
        private String registry;
        private String nodeSelector;
        private boolean podFieldSelector;
        private Duration clockSkew;
        private String maxUnavailable;
        private Action action;
        private boolean allowNoAttestations;
        private StaleTaint staleTaint;
        private DrainRules drain;
        private Duration configTimeout;
        private Duration drainTimeout;
        private Duration rebootTimeout;
        private Duration attestTimeout;
        private Duration stallTimeout;
        private String leaseNamespace;
        private Duration lockTimeout;
        private Duration leaseDuration;
        private String runId;
        private Duration apiOutageBudget;
        private String markerAnnotation;
        private String markerCurrentValue;

        private Builder(CoordinatorSettings s) {
            this.registry = s.selection().registry();
            this.nodeSelector = s.selection().nodeSelector();
            this.podFieldSelector = s.selection().podFieldSelector();
            this.clockSkew = s.selection().clockSkew();
            this.maxUnavailable = s.limits().maxUnavailable();
            this.action = s.limits().action();
            this.allowNoAttestations = s.limits().allowNoAttestations();
            this.staleTaint = s.limits().staleTaint();
            this.drain = s.limits().drain();
            this.configTimeout = s.timeouts().config();
            this.drainTimeout = s.timeouts().drain();
            this.rebootTimeout = s.timeouts().reboot();
            this.attestTimeout = s.timeouts().attest();
            this.stallTimeout = s.timeouts().stall();
            this.leaseNamespace = s.lease().namespace();
            this.lockTimeout = s.lease().lockTimeout();
            this.leaseDuration = s.lease().leaseDuration();
            this.runId = s.lease().runId();
            this.apiOutageBudget = s.lease().apiOutageBudget();
            this.markerAnnotation = s.marker().annotation();
            this.markerCurrentValue = s.marker().currentValue();
        }

        public Builder registry(String v) {
            this.registry = v;
            return this;
        }

        public Builder nodeSelector(String v) {
            this.nodeSelector = v;
            return this;
        }

        public Builder podFieldSelector(boolean v) {
            this.podFieldSelector = v;
            return this;
        }

        public Builder clockSkew(Duration v) {
            this.clockSkew = v;
            return this;
        }

        public Builder maxUnavailable(String v) {
            this.maxUnavailable = v;
            return this;
        }

        public Builder action(Action v) {
            this.action = v;
            return this;
        }

        public Builder allowNoAttestations(boolean v) {
            this.allowNoAttestations = v;
            return this;
        }

        public Builder staleTaint(StaleTaint v) {
            this.staleTaint = v;
            return this;
        }

        public Builder drain(DrainRules v) {
            this.drain = v;
            return this;
        }

        public Builder configTimeout(Duration v) {
            this.configTimeout = v;
            return this;
        }

        public Builder drainTimeout(Duration v) {
            this.drainTimeout = v;
            return this;
        }

        public Builder rebootTimeout(Duration v) {
            this.rebootTimeout = v;
            return this;
        }

        public Builder attestTimeout(Duration v) {
            this.attestTimeout = v;
            return this;
        }

        public Builder stallTimeout(Duration v) {
            this.stallTimeout = v;
            return this;
        }

        public Builder leaseNamespace(String v) {
            this.leaseNamespace = v;
            return this;
        }

        public Builder lockTimeout(Duration v) {
            this.lockTimeout = v;
            return this;
        }

        public Builder leaseDuration(Duration v) {
            this.leaseDuration = v;
            return this;
        }

        public Builder runId(String v) {
            this.runId = v;
            return this;
        }

        public Builder apiOutageBudget(Duration v) {
            this.apiOutageBudget = v;
            return this;
        }

        public Builder markerAnnotation(String v) {
            this.markerAnnotation = v;
            return this;
        }

        public Builder markerCurrentValue(String v) {
            this.markerCurrentValue = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the flag of the first bad value */
        public CoordinatorSettings build() {
            // a bad value is named in the order the flags were always checked: the registry first
            Selection selection = new Selection(registry, nodeSelector, podFieldSelector, clockSkew);
            RunLimits limits = new RunLimits(maxUnavailable, action, allowNoAttestations, staleTaint, drain);
            NodeTimeouts timeouts = new NodeTimeouts(configTimeout, drainTimeout, rebootTimeout, attestTimeout, stallTimeout);
            LeaseSettings lease = new LeaseSettings(leaseNamespace, lockTimeout, leaseDuration, runId, apiOutageBudget);
            MarkerSettings marker = new MarkerSettings(markerAnnotation, markerCurrentValue);
            return new CoordinatorSettings(lease, timeouts, limits, selection, marker);
        }
    }
}
