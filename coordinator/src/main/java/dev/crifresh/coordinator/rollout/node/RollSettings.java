package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.base.NodeTimeouts;
import java.time.Duration;
import java.util.Objects;

/**
 * What each node's roll reads of the settings: the run id it writes into ownership annotations, the waits, what a
 * drain may evict, and what an unsent reboot may be allowed (the Lease's duration and the clock skew: see
 * {@code UnsentReboot}).
 *
 * @param timeouts the node waits; the run's blocked timer reads {@link NodeTimeouts#stall()} from here too
 */
public record RollSettings(String runId, NodeTimeouts timeouts, DrainRules drain, Duration leaseDuration, Duration clockSkew) {
    public RollSettings {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(timeouts, "timeouts");
        Objects.requireNonNull(drain, "drain");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(clockSkew, "clockSkew");
    }

    /** The roll's part of the run's settings. */
    public static RollSettings of(CoordinatorSettings s) {
        return new RollSettings(s.lease().runId(), s.timeouts(), s.limits().drain(), s.lease().leaseDuration(),
                s.selection().clockSkew());
    }
}
