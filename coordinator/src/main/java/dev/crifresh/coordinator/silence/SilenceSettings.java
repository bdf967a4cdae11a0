package dev.crifresh.coordinator.silence;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where and how to silence a node: Alertmanager's base URL, the silences per node (their matchers with {@code {node}}
 * placeholders), how
 * long a silence lasts, and the run id written into each silence's comment.
 */
public record SilenceSettings(URI alertmanager, List<SilenceSpec> silences, Duration lifetime, String runId) {
    public static final String CREATED_BY = "crifresh";

    public SilenceSettings {
        silences = List.copyOf(silences);
        if (silences.isEmpty()) {
            throw new IllegalArgumentException("no silence matchers");
        }
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("a silence must last longer than 0");
        }
    }

    /** A node is down at most until it is back ({@code --reboot-timeout}) and attested fresh ({@code --attest-timeout}). */
    public static Duration lifetime(Duration rebootTimeout, Duration attestTimeout) {
        return rebootTimeout.plus(attestTimeout);
    }

    public String comment(String node) {
        return "crifresh run " + runId + ": " + node + " is rebooted to load the current CRI config (registry credential)";
    }
}
