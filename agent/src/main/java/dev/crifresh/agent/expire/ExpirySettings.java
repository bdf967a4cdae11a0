package dev.crifresh.agent.expire;

import java.time.Duration;
import java.util.Objects;

/**
 * How the expiry leader is elected and how often it looks.
 *
 * @param leaseNamespace the Lease's namespace (the release's)
 * @param leaseName      the Lease every agent of the DaemonSet competes for
 * @param identity       this candidate's {@code holderIdentity} (its pod's name)
 * @param period         how often the leader renews the Lease and looks at every Node, and a follower tries
 *                       to take the Lease
 * @param leaseDuration  how long a Lease the leader stopped renewing keeps the others out; at least two periods
 */
public record ExpirySettings(String leaseNamespace, String leaseName, String identity, Duration period,
                             Duration leaseDuration) {
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(20);
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(40);

    public ExpirySettings {
        requireText(leaseNamespace, "leaseNamespace");
        requireText(leaseName, "leaseName");
        requireText(identity, "identity");
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        if (period.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("the expiry period must be at least 100ms");
        }
        if (leaseDuration.compareTo(period.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("the expiry lease duration must be at least two periods, or a"
                    + " leader that is merely slow loses its Lease between two renewals");
        }
        if (leaseDuration.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("the expiry lease duration must be whole seconds (a Lease counts in seconds)");
        }
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
    }
}
