package dev.crifresh.coordinator.base;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * What the rollout Lease is and how long the run may hold or wait for it; read by the Lease's keeper (and by the
 * composition root, which builds the Lease's client from it).
 *
 * @param namespace       namespace of the Lease {@code crifresh-rollout} ({@code --namespace})
 * @param lockTimeout     how long to wait for the Lease held by someone else ({@code --lock-timeout})
 * @param leaseDuration   the Lease's duration; it is renewed every third of it ({@code --lease-duration})
 * @param runId           this run's id, the Lease holder's prefix and written into ownership annotations
 *                        ({@code <runId>/<phase>}, {@code --run-id})
 * @param apiOutageBudget how long the API server may be unreachable (a reboot that takes it away) while the run
 *                        waits with no side effect; zero refuses to reboot a node that carries the API server
 *                        ({@code --api-outage-budget})
 */
public record LeaseSettings(String namespace, Duration lockTimeout, Duration leaseDuration, String runId,
                            Duration apiOutageBudget) {
    public static final String DEFAULT_NAMESPACE = "crifresh";
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    public LeaseSettings {
        SettingsChecks.require(namespace != null && !namespace.isBlank(), "--namespace is empty");
        SettingsChecks.positive(lockTimeout, "--lock-timeout");
        SettingsChecks.positive(leaseDuration, "--lease-duration");
        SettingsChecks.require(runId != null && RUN_ID.matcher(runId).matches(),
                "--run-id '" + runId + "' must be 1-63 letters, digits, '.', '_' or '-'");
        SettingsChecks.require(apiOutageBudget != null && !apiOutageBudget.isNegative(),
                "--api-outage-budget must not be negative");
    }
}
