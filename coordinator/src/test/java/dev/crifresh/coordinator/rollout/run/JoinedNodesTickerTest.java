package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.fixture.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nodes that join during a run are waited for up to {@code --attest-timeout} (30 s here) until they attest fresh
 * or stale, then handed on to be decided; on the {@link ManualTicker}.
 */
class JoinedNodesTickerTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("a fresh or stale attestation hands the node on at once",
                        List.of("add a", "add b", "check a FRESH", "advance 5s", "check b STALE", "advance 60s"),
                        List.of("settled a", "settled b"), List.of()),
                Arguments.of("unknown and config-pending keep it waiting until the timeout hands it on",
                        List.of("add a", "check a UNKNOWN", "check a CONFIG_PENDING", "advance 29s", "mark", "advance 1s"),
                        List.of("29s", "settled a"), List.of()),
                Arguments.of("a node is handed on once: a late attestation after the timeout changes nothing",
                        List.of("add a", "advance 30s", "check a FRESH", "advance 60s"),
                        List.of("settled a"), List.of()),
                Arguments.of("seen joining twice, it is waited for once, from the first time",
                        List.of("add a", "advance 20s", "add a", "advance 10s", "advance 60s"),
                        List.of("settled a"), List.of()),
                Arguments.of("a node deleted while waited for is never handed on",
                        List.of("add a", "add b", "remove a", "advance 30s"),
                        List.of("removed a", "settled b"), List.of()),
                Arguments.of("a node not waited for is ignored",
                        List.of("check z FRESH", "remove z", "add a", "cancel"),
                        List.of(), List.of()),
                Arguments.of("cancel stops every wait without handing anything on",
                        List.of("add a", "add b", "check b FRESH", "cancel", "advance 60s", "check a STALE"),
                        List.of("settled b"), List.of()),
                Arguments.of("still waiting: the run's joined-nodes step waits on",
                        List.of("add a", "add b", "check a STALE", "advance 10s"),
                        List.of("settled a"), List.of("b")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void waitsForTheFirstAttestationOrTheTimeout(String name, List<String> steps, List<String> told, List<String> waiting) {
        ManualTicker ticker = new ManualTicker();
        long start = ticker.nanoTime();
        List<String> log = new ArrayList<>();
        JoinedNodes joined = new JoinedNodes(ticker, Duration.ofSeconds(30), n -> log.add("settled " + n));
        List<String> added = new ArrayList<>();
        WaitScript.run(ticker, steps, w -> {
            switch (w[0]) {
                case "add" -> {
                    joined.add(w[1]);
                    if (!added.contains(w[1])) {
                        added.add(w[1]);
                    }
                }
                case "check" -> joined.check(WaitScript.classified(w[1], w[2]));
                case "remove" -> {
                    if (joined.remove(w[1])) {
                        log.add("removed " + w[1]);
                    }
                }
                case "cancel" -> joined.cancel();
                case "mark" -> log.add((ticker.nanoTime() - start) / 1_000_000_000 + "s");
                default -> throw new IllegalArgumentException("unknown step " + String.join(" ", w));
            }
        });

        assertEquals(told, log);
        assertEquals(waiting, joined.waitingFor());
        assertEquals(waiting.isEmpty(), joined.noneWaiting());
        assertEquals(added, joined.all(), "every node seen joining, in order, also those handed on");
        added.forEach(n -> assertEquals(true, joined.known(n), n));
        assertEquals(waiting.size(), ticker.pending(), "one timer per node still waited for, none left behind");
    }
}
