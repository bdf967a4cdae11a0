package dev.crifresh.coordinator.base;

import java.time.Duration;

/**
 * How long each wait of the run may take; read by the run's steps (config, stall) and each node's roll (drain,
 * reboot, attest).
 *
 * @param config how long config-pending nodes may take to hold the desired credential ({@code --config-timeout})
 * @param drain  how long one node's drain may take, PDB-blocked evictions included ({@code --drain-timeout})
 * @param reboot how long a rebooted node may take to return Ready with a new boot id ({@code --reboot-timeout})
 * @param attest how long a returned (or, with action none, a stale) node may take to attest fresh
 *               ({@code --attest-timeout})
 * @param stall  how long a run may stay blocked, with no node able to start, before it stops ({@code --stall-timeout})
 */
public record NodeTimeouts(Duration config, Duration drain, Duration reboot, Duration attest, Duration stall) {
    public NodeTimeouts {
        SettingsChecks.positive(config, "--config-timeout");
        SettingsChecks.positive(drain, "--drain-timeout");
        SettingsChecks.positive(reboot, "--reboot-timeout");
        SettingsChecks.positive(attest, "--attest-timeout");
        SettingsChecks.positive(stall, "--stall-timeout");
    }
}
