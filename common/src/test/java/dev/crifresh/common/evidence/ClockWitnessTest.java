package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ClockWitness}: the socket's stamp against containerd's /proc-derived start, as a table. */
class ClockWitnessTest {
    private static final Instant START = Instant.parse("2025-03-01T10:00:05Z");
    private static final String SOCK = "/run/containerd/containerd.sock";

    record Row(String name, ContainerdSocket socket, Duration error, Class<? extends ClockWitness.Reading> expected) {
        @Override
        public String toString() {
            return name + " → " + expected.getSimpleName();
        }
    }

    private static ContainerdSocket at(Duration afterStart) {
        return ContainerdSocket.found(SOCK, START.plus(afterStart), START.plus(afterStart));
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    static List<Row> rows() {
        return List.of(
                new Row("not read", null, Duration.ZERO, ClockWitness.NoWitness.class),
                new Row("missing", ContainerdSocket.unusable(SOCK, "no such file"), Duration.ZERO, ClockWitness.NoWitness.class),
                new Row("not a socket", ContainerdSocket.unusable(SOCK, "not a socket"), Duration.ZERO, ClockWitness.NoWitness.class),
                new Row("bound 40 ms after the start", at(ms(40)), Duration.ZERO, ClockWitness.Agrees.class),
                new Row("bound at the start exactly", at(Duration.ZERO), Duration.ZERO, ClockWitness.Agrees.class),
                new Row("10 ms early: the kernel's coarse file clock", at(ms(-10)), Duration.ZERO, ClockWitness.Agrees.class),
                new Row("10.001 ms early with a perfect estimate", at(Duration.ofNanos(-10_001_000)), Duration.ZERO,
                        ClockWitness.SteppedForward.class),
                new Row("25 ms early, estimate error 15 ms", at(ms(-25)), ms(15), ClockWitness.Agrees.class),
                new Row("26 ms early, estimate error 15 ms", at(ms(-26)), ms(15), ClockWitness.SteppedForward.class),
                new Row("five seconds slow at the start", at(ms(-5000)), ms(2), ClockWitness.SteppedForward.class),
                new Row("near the epoch at the start", ContainerdSocket.found(SOCK, Instant.parse("1970-01-01T00:00:06Z"),
                        Instant.parse("1970-01-01T00:00:06Z")), ms(2), ClockWitness.SteppedForward.class),
                new Row("a slow start-up: bound 9 s after the start", at(ms(9000)), Duration.ZERO, ClockWitness.Agrees.class),
                new Row("start-up limit plus the estimate error", at(ms(10_005)), ms(5), ClockWitness.Agrees.class),
                new Row("just beyond the start-up limit", at(ms(10_006)), ms(5), ClockWitness.SteppedBack.class),
                new Row("an hour fast at the start", at(Duration.ofHours(1)), ms(2), ClockWitness.SteppedBack.class),
                new Row("touched since: ctime 2 s after mtime", ContainerdSocket.found(SOCK, START.minusSeconds(5),
                        START.minusSeconds(3)), Duration.ZERO, ClockWitness.NoWitness.class),
                new Row("mtime set into the future: ctime 2 s before mtime", ContainerdSocket.found(SOCK,
                        START.plusSeconds(3600), START.plusSeconds(3598)), Duration.ZERO, ClockWitness.NoWitness.class),
                new Row("chmod right after bind: ctime 1 s after mtime", ContainerdSocket.found(SOCK,
                        START.minusSeconds(5), START.minusSeconds(4)), Duration.ZERO, ClockWitness.SteppedForward.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifiesTheSocketAgainstTheStart(Row row) {
        ClockWitness.Reading reading = ClockWitness.read(row.socket(), START, row.error());
        assertInstanceOf(row.expected(), reading, row.name() + ": " + reading.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void aForwardStepCarriesTheSocketsStampAndItsSize(Row row) {
        if (ClockWitness.read(row.socket(), START, row.error()) instanceof ClockWitness.SteppedForward f) {
            assertEquals(row.socket().mtime(), f.socketAt());
            assertEquals(Duration.between(row.socket().mtime(), START), f.behind());
        }
    }
}
