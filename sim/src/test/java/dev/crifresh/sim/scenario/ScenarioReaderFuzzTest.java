package dev.crifresh.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Fuzzes the scenario YAML reader. Invariants: it returns a scenario or throws {@link ScenarioException}
 * with a one-line message (nothing else, no hang), it is deterministic, and what it accepts is valid:
 * at least one node, at most {@value ScenarioReader#MAX_NODES}, unique RFC 1123 names, no negative
 * durations other than the config write time, pods within {@value ScenarioReader#MAX_PODS}.
 * Seeds: the shipped example scenarios.
 */
class ScenarioReaderFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] input) throws ScenarioException {
        String yaml = new String(input, StandardCharsets.UTF_8);
        Scenario scenario;
        try {
            scenario = ScenarioReader.parse(yaml);
        } catch (ScenarioException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "an empty error");
            assertFalse(e.getMessage().contains("\n"), () -> "a multi-line error: " + e.getMessage());
            return;
        }
        assertEquals(scenario, ScenarioReader.parse(yaml), "the same file read twice");
        assertFalse(scenario.nodes().isEmpty(), "a scenario without nodes");
        assertTrue(scenario.nodes().size() <= ScenarioReader.MAX_NODES, "too many nodes");
        Set<String> names = new HashSet<>();
        for (NodeSpec node : scenario.nodes()) {
            assertTrue(names.add(node.name()), () -> "duplicate node " + node.name());
            assertTrue(node.name().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"),
                    () -> "node name " + node.name());
            assertFalse(node.bootedAgo().isNegative(), "negative bootedSecondsAgo");
            assertFalse(node.containerdStartedAfterBoot().isNegative(), "negative containerd start");
            assertTrue(node.pods() >= 0 && node.pods() <= ScenarioReader.MAX_PODS, "pods out of range");
        }
    }
}
