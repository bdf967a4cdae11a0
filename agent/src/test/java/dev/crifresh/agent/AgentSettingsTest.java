package dev.crifresh.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.RuleSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentSettingsTest {
    @Test
    void defaultsAreTheProductionValues() {
        AgentSettings s = AgentSettings.defaults("n1");
        assertEquals(Path.of("/proc"), s.procRoot());
        assertEquals(Path.of("/host"), s.hostRoot());
        assertEquals(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml", "/etc/cri/conf.d/*.part"),
                s.watchGlobs());
        assertEquals("--address /run/containerd/containerd.sock --config /etc/cri/containerd.toml",
                s.matcher().toString());
        assertEquals(RuleSettings.defaults(), s.rules());
        assertEquals(Duration.ofMinutes(5), s.heartbeat());
        assertEquals(Duration.ofMinutes(15), s.validity());
        assertEquals(Duration.ofSeconds(5), s.procPoll());
        assertEquals(9402, s.metricsPort());
        assertTrue(s.agentVersion().matches("\\d+\\.\\d+\\.\\d+.*"), s.agentVersion());
    }

    @Test
    void withersChangeOnlyWhatTheyName() {
        AgentSettings s = AgentSettings.defaults("n1").withRoots(Path.of("/p"), Path.of("/h")).withMetricsPort(-1)
                .withTiming(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ZERO);
        assertEquals(Path.of("/p"), s.procRoot());
        assertEquals(Path.of("/h"), s.hostRoot());
        assertEquals(-1, s.metricsPort());
        assertEquals(Duration.ofSeconds(3), s.procPoll());
        assertEquals(Duration.ZERO, s.debounce());
        assertEquals("n1", s.nodeName());
    }

    @Test
    void rejectsSettingsThatCannotWork() {
        AgentSettings d = AgentSettings.defaults("n1");
        assertThrows(IllegalArgumentException.class, () -> AgentSettings.defaults(" "));
        assertThrows(IllegalArgumentException.class,
                () -> d.withTiming(Duration.ZERO, d.validity(), d.procPoll(), d.debounce()));
        assertThrows(IllegalArgumentException.class, () -> watching(d, List.of()));
        assertThrows(IllegalArgumentException.class, () -> watching(d, List.of("/etc/*/x")));
    }

    /** {@code d} watching {@code globs}, through the canonical constructor that validates them. */
    private static AgentSettings watching(AgentSettings d, List<String> globs) {
        return new AgentSettings("n", d.procRoot(), d.hostRoot(), globs, d.matcher(), d.rules(), d.heartbeat(),
                d.validity(), d.procPoll(), d.debounce(), 0, "v", d.mounts(), d.containerdGeneration(), d.criSocket(),
                d.containerdIntrospection());
    }
}
