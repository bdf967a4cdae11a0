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
        assertEquals("ghcr.io", d.registry());
        assertEquals("1", d.maxUnavailable());
        assertEquals(Action.REBOOT, d.action());
        assertEquals("crifresh", d.leaseNamespace());
        assertTrue(d.podFieldSelector());
        assertTrue(d.runId().matches("run-[0-9a-f]{8}"), d.runId());
        assertNotEquals(d.runId(), CoordinatorSettings.defaults().runId());
    }

    @Test
    void withersChangeOneField() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        CoordinatorSettings s = d.withDrainTimeout(Duration.ofSeconds(7)).withNodeSelector(" ").withMarkerCurrentValue("");
        assertEquals(Duration.ofSeconds(7), s.drainTimeout());
        assertEquals(d.rebootTimeout(), s.rebootTimeout());
        assertNull(s.nodeSelector());
        assertNull(s.markerCurrentValue());
    }

    @Test
    void invalidValuesAreRejectedNamingTheFlag() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withMaxUnavailable("0")).getMessage().contains("--max-unavailable"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withDrainTimeout(Duration.ZERO)).getMessage().contains("--drain-timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withRunId("a/b")).getMessage().contains("--run-id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withRegistry(" ")).getMessage().contains("--registry"));
    }

    @Test
    void actionsHaveWireNames() {
        assertEquals(Action.NONE, Action.fromWire("none"));
        assertEquals("reboot", Action.REBOOT.wire());
        assertThrows(IllegalArgumentException.class, () -> Action.fromWire("kexec"));
    }
}
