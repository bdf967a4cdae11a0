package dev.crifresh.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The translation of the rendered chart into the container run ({@link ChartAgent}, {@link ChartRun}):
 * the run follows the chart when a value changes, and a chart setting the run cannot express fails
 * instead of being left out. (ImageRunTest then runs it and reads the result back from /proc.)
 */
class ChartRunTest {

    private static final Path ROOTFS = Path.of("/rootfs");

    @Test
    void theDefaultChartRunsAsRootWithoutCapabilitiesOnAReadOnlyRoot() {
        List<String> flags = flags(ChartAgent.render(Map.of()));
        assertTrue(flags.contains("--read-only"), flags.toString());
        assertTrue(flags.contains("--seccomp"), flags.toString());
        assertFalse(flags.contains("--allow-new-privs"), flags.toString());
        assertFalse(flags.contains("--privileged"), flags.toString());
        assertEquals(ChartRun.ALL_CAPABILITIES.size(), Collections.frequency(flags, "--cap-drop"));
        assertTrue(flags.containsAll(ChartRun.ALL_CAPABILITIES));
        assertEquals("pid:/proc/42/ns/pid", flags.get(flags.indexOf("--with-ns") + 1));
        assertTrue(flags.contains("type=bind,src=/etc/cri,dst=/host/etc/cri,options=rbind:ro"), flags.toString());
        assertTrue(flags.contains("type=bind,src=/v/tmp,dst=/tmp,options=rbind:rw"), flags.toString());
        assertTrue(flags.contains("type=bind,src=/v/signing-key,dst=/etc/crifresh/signing,options=rbind:ro"), flags.toString());
        assertEquals("134217728", flags.get(flags.indexOf("--memory-limit") + 1), "128Mi");
        // No CPU limit by default (a 100m limit made the first attestation after a reboot take ~14 s): no CFS quota.
        assertFalse(flags.contains("--cpu-quota"), flags.toString());
        assertTrue(flags.contains("NODE_NAME=worker-1"), flags.toString());
        List<String> argv = flags.subList(flags.indexOf("id") + 1, flags.size());
        assertEquals(List.of("java", "-jar", "/opt/crifresh/crifresh-agent.jar", "run", "--node-name=worker-1"), argv.subList(0, 5));
    }

    @Test
    void theRunFollowsTheChartsValues() {
        List<String> flags = flags(ChartAgent.render(Map.of("securityContext.allowPrivilegeEscalation", "true",
                "securityContext.readOnlyRootFilesystem", "false", "agent.configHostPaths[0]", "/etc/containerd",
                "resources.limits.cpu", "100m")));
        assertEquals("10000", flags.get(flags.indexOf("--cpu-quota") + 1), "100m of a 100 ms period");
        assertTrue(flags.contains("--allow-new-privs"), flags.toString());
        assertFalse(flags.contains("--read-only"), flags.toString());
        assertTrue(flags.contains("type=bind,src=/etc/containerd,dst=/host/etc/containerd,options=rbind:ro"), flags.toString());
    }

    @Test
    void aSettingTheRunCannotExpressFails() {
        assertThrows(AssertionError.class, () -> flags(ChartAgent.render(Map.of("podSecurityContext.runAsUser", "1000"))));
        assertThrows(AssertionError.class, () -> ChartAgent.render(Map.of("securityContext.capabilities.add[0]", "SYS_PTRACE")));
        assertThrows(AssertionError.class, () -> ChartAgent.render(Map.of("securityContext.runAsNonRoot", "true",
                "securityContext.procMount", "Unmasked")));
    }

    private static List<String> flags(ChartAgent agent) {
        ChartRun run = new ChartRun(agent, List.of("java", "-jar", "/opt/crifresh/crifresh-agent.jar"), List.of("PATH=/usr/bin"),
                Map.of("spec.nodeName", "worker-1", "metadata.name", "crifresh-agent-worker-1"),
                Map.of("signing-key", Path.of("/v/signing-key"), "fingerprint-key", Path.of("/v/fingerprint-key"), "tmp", Path.of("/v/tmp")),
                Map.of(), List.of());
        return run.ctrArgs(ROOTFS, "id", agent.expandedArgs(run.environment()), false, null, "/proc/42/ns/pid")
                .stream().map(Object::toString).toList();
    }
}
