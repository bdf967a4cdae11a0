package dev.crifresh.coordinator.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void defaultsAreUsableAndRunIdsDiffer() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        assertEquals("ghcr.io", d.selection().registry());
        assertEquals("1", d.limits().maxUnavailable());
        assertEquals(Action.REBOOT, d.limits().action());
        assertEquals("crifresh", d.lease().namespace());
        assertTrue(d.selection().podFieldSelector());
        assertTrue(d.lease().runId().matches("run-[0-9a-f]{8}"), d.lease().runId());
        assertNotEquals(d.lease().runId(), CoordinatorSettings.defaults().lease().runId());
    }

    @Test
    void theBuilderChangesOnlyWhatItIsGiven() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        CoordinatorSettings s = d.toBuilder().drainTimeout(Duration.ofSeconds(7)).nodeSelector(" ").markerCurrentValue("").build();
        assertEquals(Duration.ofSeconds(7), s.timeouts().drain());
        assertEquals(d.timeouts().reboot(), s.timeouts().reboot());
        assertNull(s.selection().nodeSelector());
        assertNull(s.marker().currentValue());
        assertEquals(d.lease(), s.lease());
        assertEquals(d.limits(), s.limits());
        assertEquals(d, d.toBuilder().build());
    }

    @Test
    void theStallTimeoutIsItsOwnValueDefaultingToTenMinutesLikeTheRebootTimeout() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        assertEquals(Duration.ofMinutes(10), d.timeouts().stall());
        assertEquals(Duration.ofMinutes(10), d.timeouts().reboot());
        CoordinatorSettings s = d.toBuilder().stallTimeout(Duration.ofSeconds(30)).build();
        assertEquals(Duration.ofSeconds(30), s.timeouts().stall());
        assertEquals(Duration.ofMinutes(10), s.timeouts().reboot());
    }

    @Test
    void invalidValuesAreRejectedNamingTheFlag() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().maxUnavailable("0").build()).getMessage().contains("--max-unavailable"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().drainTimeout(Duration.ZERO).build()).getMessage().contains("--drain-timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().runId("a/b").build()).getMessage().contains("--run-id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().registry(" ").build()).getMessage().contains("--registry"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().stallTimeout(Duration.ZERO).build()).getMessage().contains("--stall-timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().rebootTimeout(null).build()).getMessage().contains("--reboot-timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.toBuilder().apiOutageBudget(Duration.ofSeconds(-1)).build()).getMessage().contains("--api-outage-budget"));
    }

    @Test
    void actionsHaveWireNames() {
        assertEquals(Action.NONE, Action.fromWire("none"));
        assertEquals("reboot", Action.REBOOT.wire());
        assertThrows(IllegalArgumentException.class, () -> Action.fromWire("kexec"));
    }
}
