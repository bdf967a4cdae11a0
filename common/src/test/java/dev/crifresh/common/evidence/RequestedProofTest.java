package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Rule 11: a requested runtime-status proof that did not apply is named in the message; nothing else changes. */
class RequestedProofTest {
    private static final Evaluation FRESH = new Evaluation(Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG,
            Proof.ORDERING, "containerd (pid 42) started 3 s after the newest config change", null, Instant.EPOCH,
            "sha256:ab", null);
    private static final Evaluation STALE = new Evaluation(Verdict.STALE, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START,
            Proof.NONE, "config changed", null, Instant.EPOCH, "sha256:ab", null);

    static Stream<Arguments> rows() {
        RuntimeAuth none = new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, "no registry section");
        return Stream.of(
                Arguments.of("not asked", FRESH, RuntimeAuth.UNAVAILABLE, false, null),
                Arguments.of("asked, decided same", FRESH, new RuntimeAuth(RuntimeAuth.State.SAME, "x"), true, null),
                Arguments.of("asked, decided different", STALE, new RuntimeAuth(RuntimeAuth.State.DIFFERENT, "x"), true,
                        null),
                Arguments.of("asked, unavailable, fresh by ordering", FRESH, none, true, FRESH.message()
                        + " (the requested runtime-status proof does not apply: no registry section; proof used"
                        + " instead: ordering)"),
                Arguments.of("asked, unavailable, stale", STALE, none, true, "config changed (the requested"
                        + " runtime-status proof does not apply: no registry section; proof used instead: none)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void theFallbackIsNamedNeverSilent(String name, Evaluation given, RuntimeAuth runtime, boolean asked,
            String message) {
        Evaluation after = RequestedProof.apply(given, runtime, asked);
        if (message == null) {
            assertSame(given, after);
            return;
        }
        assertEquals(message, after.message());
        assertEquals(given.verdict(), after.verdict());
        assertEquals(given.reason(), after.reason());
        assertEquals(given.proof(), after.proof());
    }
}
