package dev.crifresh.coordinator.base;

import java.time.Duration;

/** The settings records' checks: a bad value is an {@link IllegalArgumentException} whose message names the flag. */
final class SettingsChecks {
    private SettingsChecks() {
    }

    static void positive(Duration d, String flag) {
        require(d != null && !d.isNegative() && !d.isZero(), flag + " must be a positive duration");
    }

    static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
