package dev.crifresh.sim.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.ContainerdMatcher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcFilesTest {
    @Test
    void statCarriesTheStartTicksInField22() {
        String stat = ProcFiles.stat(4242, "containerd", 1, 601);
        String[] afterComm = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        assertEquals(52 - 2, afterComm.length);
        assertEquals("601", afterComm[22 - 3]);
        assertTrue(stat.startsWith("4242 (containerd) S 1 "));
    }

    @Test
    void ticksAreTruncatedHundredths() {
        assertEquals(600, ProcFiles.ticks(Duration.ofSeconds(6)));
        assertEquals(650, ProcFiles.ticks(Duration.ofMillis(6509)));
        assertEquals(0, ProcFiles.ticks(Duration.ofMillis(9)));
    }

    @Test
    void onlyTheCriContainerdMatchesTheTalosMatcher() {
        ContainerdMatcher talos = ContainerdMatcher.talosCri();
        assertTrue(talos.matches(argv(ProcFiles.cmdline(ProcFiles.CRI_CONTAINERD))));
        assertFalse(talos.matches(argv(ProcFiles.cmdline(ProcFiles.SYSTEM_CONTAINERD))));
        assertFalse(talos.matches(argv(ProcFiles.cmdline(ProcFiles.INIT))));
    }

    @Test
    void cmdlineIsNulTerminatedArguments() {
        assertEquals("/sbin/init\0", new String(ProcFiles.cmdline(List.of("/sbin/init")), StandardCharsets.UTF_8));
    }

    @Test
    void uptimeIsTwoDecimals() {
        assertTrue(ProcFiles.uptime(Duration.ofMillis(86400250)).startsWith("86400.25 "));
    }

    private static List<String> argv(byte[] cmdline) {
        return List.of(new String(cmdline, StandardCharsets.UTF_8).split("\0"));
    }
}
