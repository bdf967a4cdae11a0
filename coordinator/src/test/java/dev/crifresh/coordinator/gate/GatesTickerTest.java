package dev.crifresh.coordinator.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.gate.block.Blockers;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Waiting out a node's blockers on a {@link ManualTicker}: the poll period and the bound, with no time passing. */
class GatesTickerTest {
    private final ManualTicker ticker = new ManualTicker();
    private final List<String> firing = new ArrayList<>(List.of("NodeMaintenance"));
    private final List<String> said = new ArrayList<>();
    private final Gates gates = new Gates(ticker, null, GateSettings.off(), null, null,
            new Blockers(() -> Future.succeededFuture(List.copyOf(firing)), Pattern.compile("NodeMaintenance"), null),
            ProgressListener.NONE);
    private final NodeFacts w1 = new NodeFacts("w1", "uid-1", "1", Role.WORKER, "boot-1", true, false, List.of("10.0.0.1"),
            Map.of(), null, null, NodeFacts.ReadyTimes.NONE, List.of());

    @Test
    void aBlockerGoneIsSeenAtTheNextPollAndTheWaitIsMeasuredOnTheTicker() {
        Future<GateVerdict> verdict = gates.beforeTakeDown(w1, List.of(w1), () -> false, said::add);
        assertFalse(verdict.isComplete());
        ticker.advance(Duration.ofSeconds(30));
        assertFalse(verdict.isComplete(), "still blocked at the first poll");
        firing.clear();
        ticker.advance(Duration.ofSeconds(30));
        assertTrue(verdict.result().pass(), String.valueOf(verdict.result()));
        assertEquals("no longer blocked, after 1m", said.get(said.size() - 1));
    }

    @Test
    void aBlockerThatOutlivesTheBoundTimesTheNodeOut() {
        Future<GateVerdict> verdict = gates.beforeTakeDown(w1, List.of(w1), () -> false, said::add);
        ticker.advance(Duration.ofMinutes(29));
        assertFalse(verdict.isComplete());
        ticker.advance(Duration.ofMinutes(1));
        assertTrue(verdict.result().timedOut(), String.valueOf(verdict.result()));
        assertEquals("blocked for 30m by alert NodeMaintenance; not touched", verdict.result().detail());
        assertEquals(0, ticker.pending());
    }
}
