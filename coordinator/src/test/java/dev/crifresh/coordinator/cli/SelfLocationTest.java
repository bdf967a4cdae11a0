package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.coordinator.base.DrainRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelfLocationTest {
    private static final DrainRules RULES = new DrainRules(true, false, null, null);

    @Test
    void theDownwardApiSaysWhereTheChartsJobRuns() {
        DrainRules r = SelfLocation.apply(RULES, null, null,
                Map.of("NODE_NAME", "w2", "POD_NAME", "crifresh-rollout-7x", "POD_NAMESPACE", "crifresh"));
        assertEquals(new DrainRules(true, false, "w2", "crifresh/crifresh-rollout-7x"), r);
    }

    @Test
    void flagsWinOverTheEnvironment() {
        DrainRules r = SelfLocation.apply(RULES, "runner-1", "ci/runner-pod", Map.of("NODE_NAME", "w2", "POD_NAME", "p", "POD_NAMESPACE", "n"));
        assertEquals(new DrainRules(true, false, "runner-1", "ci/runner-pod"), r);
    }

    @Test
    void nothingKnownIsNull() {
        assertEquals(RULES, SelfLocation.apply(RULES, null, null, Map.of("POD_NAME", "p")));
        assertEquals(RULES, SelfLocation.apply(RULES, "", " ", Map.of()));
    }

    @Test
    void aPodNotNamespaceSlashNameIsAUsageError() {
        UsageException e = assertThrows(UsageException.class, () -> SelfLocation.apply(RULES, null, "just-a-name", Map.of()));
        assertEquals("--self-pod 'just-a-name' must be NAMESPACE/NAME", e.getMessage());
    }
}
