package dev.crifresh.coordinator.base;

/**
 * What the run may do to the cluster; read by the pre-flight, the plan and the run's decisions.
 *
 * @param maxUnavailable      {@code "1"} or {@code "25%"} of the selected nodes (see {@link MaxUnavailable},
 *                            {@code --max-unavailable})
 * @param action              reboot stale nodes, or (Talos ≥ 1.14) only wait for them to turn fresh ({@code --action})
 * @param allowNoAttestations proceed when no selected node carries a verifiable attestation (the run then reboots
 *                            them all); false stops before the first cordon, exit 6 ({@code --allow-no-attestations})
 * @param staleTaint          the taint put on stale nodes before the first drain (or off), see {@link StaleTaint}
 *                            ({@code --stale-taint})
 * @param drain               what a drain may evict ({@code --force}, {@code --delete-emptydir-data}) and where the
 *                            coordinator runs (never evicted, its node never rolled)
 */
public record RunLimits(String maxUnavailable, Action action, boolean allowNoAttestations, StaleTaint staleTaint,
                        DrainRules drain) {
    public RunLimits {
        MaxUnavailable.parse(maxUnavailable);
        SettingsChecks.require(action != null, "action is missing");
        SettingsChecks.require(staleTaint != null, "stale taint is missing");
        SettingsChecks.require(drain != null, "drain rules are missing");
    }

    public MaxUnavailable budget() {
        return MaxUnavailable.parse(maxUnavailable);
    }
}
