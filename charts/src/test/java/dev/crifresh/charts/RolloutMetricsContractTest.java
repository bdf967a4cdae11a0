package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.http.RolloutMarks;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.RolloutMetrics;
import dev.crifresh.coordinator.report.StopReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The crifresh_rollout_* names the dashboard reads are the ones the real coordinator pushes. */
class RolloutMetricsContractTest {

    @Test
    void theCoordinatorPushesExactlyTheRolloutMetricsTheDashboardReads() {
        String exposition = RolloutMetrics.render(Report.of(Result.SUCCEEDED, List.of(), List.of(), StopReason.COMPLETED, null),
                Duration.ofSeconds(95), Instant.now());
        Set<String> pushed = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                pushed.add(line.split("[{ ]", 2)[0]);
            }
        }
        assertEquals(new TreeSet<>(ObservabilityTest.ROLLOUT_METRICS), pushed);
        assertTrue(exposition.contains("crifresh_build_info{component=\"coordinator\",version=\"" + CrifreshVersion.current()
                + "\",claims_version=\"" + AttestationClaims.VERSION + "\"} 1\n"), exposition);
    }

    /** The agents' and the coordinator's Node marks use the same keys. */
    @Test
    void theAgentReadsTheMarksTheCoordinatorWrites() {
        assertEquals(CrifreshAnnotations.ROLLOUT, RolloutMarks.ROLLOUT);
        assertEquals(CrifreshAnnotations.NOT_CARRIED_OUT, RolloutMarks.NOT_CARRIED_OUT);
        assertEquals(StaleTaint.KEY, RolloutMarks.STALE_TAINT);
    }
}
