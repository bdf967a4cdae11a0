package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule 9: a process that may be the CRI containerd but could not be read might be a second one: unknown
 * ({@code ContainerdAmbiguous}) over every verdict, and over {@code ContainerdNotFound}, but not over another unknown.
 */
class ProcessReadCheckTest {
    private static Evaluation of(Reason reason) {
        return new Evaluation(reason.verdict(), reason, reason.verdict() == Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                "the rules' sentence", null, Instant.EPOCH, "sha256:ab", null);
    }

    static Stream<Arguments> rows() {
        List<String> one = List.of("pid 77: stat unreadable");
        return Stream.of(
                Arguments.of(Reason.CONTAINERD_STARTED_AFTER_CONFIG, List.of(), Reason.CONTAINERD_STARTED_AFTER_CONFIG),
                Arguments.of(Reason.CONTAINERD_STARTED_AFTER_CONFIG, one, Reason.CONTAINERD_AMBIGUOUS),
                Arguments.of(Reason.CONFIG_UNCHANGED_SINCE_LOAD, one, Reason.CONTAINERD_AMBIGUOUS),
                Arguments.of(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, one, Reason.CONTAINERD_AMBIGUOUS),
                Arguments.of(Reason.REGISTRY_KEY_NEVER_MATCHED, one, Reason.CONTAINERD_AMBIGUOUS),
                Arguments.of(Reason.CONTAINERD_NOT_FOUND, one, Reason.CONTAINERD_AMBIGUOUS),
                Arguments.of(Reason.CONTAINERD_NOT_FOUND, List.of(), Reason.CONTAINERD_NOT_FOUND),
                Arguments.of(Reason.CONFIG_UNREADABLE, one, Reason.CONFIG_UNREADABLE),
                Arguments.of(Reason.CONTAINERD_NOT_SERVING, one, Reason.CONTAINERD_NOT_SERVING));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("rows")
    void anUnreadableCandidateIsAmbiguous(Reason given, List<String> unreadable, Reason expected) {
        Evaluation before = of(given);
        Evaluation after = ProcessReadCheck.apply(before, unreadable);
        assertEquals(expected, after.reason());
        assertEquals(expected.verdict(), after.verdict());
        if (expected == given) {
            assertSame(before, after);
        } else {
            assertEquals("Which containerd runs is ambiguous: pid 77: stat unreadable.", after.message());
            assertEquals(Proof.NONE, after.proof());
        }
    }
}
