package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bounded wait for a set of nodes to settle (config-pending nodes, action none's wait for fresh), on the
 * {@link ManualTicker}: which callbacks fire, in which order, and what is left waited for.
 */
class PendingWaitTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("every node settles before the timeout",
                        List.of("add a", "add b", "start", "check a FRESH", "advance 5s", "check b FRESH", "advance 60s"),
                        List.of("settled a", "settled b", "all settled"), List.of()),
                Arguments.of("a node that does not settle is not taken off",
                        List.of("add a", "start", "check a STALE", "check a CONFIG_PENDING", "check a UNKNOWN", "cancel"),
                        List.of(), List.of("a")),
                Arguments.of("the timeout passes with nodes left",
                        List.of("add a", "add b", "start", "check b FRESH", "advance 9s", "advance 1s"),
                        List.of("settled b", "timeout [a]"), List.of("a")),
                Arguments.of("a settled answer after the timeout still takes the node off; the timeout fires once",
                        List.of("add a", "start", "advance 10s", "check a FRESH", "advance 60s"),
                        List.of("timeout [a]", "settled a", "all settled"), List.of()),
                Arguments.of("before start, a check of all nodes counts nothing",
                        List.of("add a", "check-all a FRESH", "start", "check-all a FRESH"),
                        List.of("settled a", "all settled"), List.of()),
                Arguments.of("a node not waited for is ignored",
                        List.of("add a", "start", "check z FRESH", "advance 10s"),
                        List.of("timeout [a]"), List.of("a")),
                Arguments.of("the last node deleted ends the wait, the timer with it",
                        List.of("add a", "add b", "start", "check a FRESH", "remove b", "end-if-empty", "advance 60s"),
                        List.of("settled a", "removed b", "all settled"), List.of()),
                Arguments.of("a deletion that leaves nodes does not end it",
                        List.of("add a", "add b", "start", "remove b", "end-if-empty", "advance 10s"),
                        List.of("removed b", "timeout [a]"), List.of("a")),
                Arguments.of("end-if-empty before start does nothing",
                        List.of("add a", "remove a", "end-if-empty", "remove z"),
                        List.of("removed a"), List.of()),
                Arguments.of("cancel tells no one, and no timer fires after it",
                        List.of("add a", "start", "cancel", "advance 60s", "check-all a FRESH"),
                        List.of(), List.of("a")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void settlesTimesOutOrEnds(String name, List<String> steps, List<String> told, List<String> left) {
        ManualTicker ticker = new ManualTicker();
        List<String> log = new ArrayList<>();
        PendingWait[] wait = new PendingWait[1];
        wait[0] = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH, c -> log.add("settled " + c.name()),
                () -> log.add("all settled"), () -> log.add("timeout " + wait[0].snapshot()));
        WaitScript.run(ticker, steps, w -> {
            switch (w[0]) {
                case "add" -> wait[0].add(w[1]);
                case "start" -> wait[0].start(Duration.ofSeconds(10));
                case "check" -> wait[0].check(WaitScript.classified(w[1], w[2]));
                case "check-all" -> wait[0].checkAll(List.of(WaitScript.classified(w[1], w[2])));
                case "remove" -> {
                    if (wait[0].remove(w[1])) {
                        log.add("removed " + w[1]);
                    }
                }
                case "end-if-empty" -> wait[0].endIfEmpty();
                case "cancel" -> wait[0].cancel();
                default -> throw new IllegalArgumentException("unknown step " + String.join(" ", w));
            }
        });

        assertEquals(told, log);
        assertEquals(left, List.copyOf(wait[0].names()));
        assertEquals(left.isEmpty(), wait[0].isEmpty());
        assertEquals(0, ticker.pending(), "no timer is left behind");
    }
}
