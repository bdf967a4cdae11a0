package dev.crifresh.coordinator.rollout.view;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A patch's answer older than the informer's latest event must not roll the run's view back. */
class ResourceVersionsTest {
    @Test
    void anOlderIntegerVersionIsOlder() {
        assertTrue(ResourceVersions.older("41", "42"));
        assertTrue(ResourceVersions.older("9", "10"), "numerically, not as text");
        assertFalse(ResourceVersions.older("42", "42"));
        assertFalse(ResourceVersions.older("43", "42"));
    }

    @Test
    void anUnknownFormatOrAMissingVersionNeverCountsAsOlder() {
        assertFalse(ResourceVersions.older("abc", "42"));
        assertFalse(ResourceVersions.older(null, "42"));
        assertFalse(ResourceVersions.older("41", null));
    }
}
