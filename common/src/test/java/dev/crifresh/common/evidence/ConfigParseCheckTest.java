package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Rule 7: a loaded file that does not parse makes every verdict but unknown unknown ({@code ConfigUnreadable}). */
class ConfigParseCheckTest {
    private static final EvaluationMemory MEMORY = new EvaluationMemory(
            new ContainerdIdentity("boot", 42, 250), "sha256:ab", "sha256:ab", false);

    private static Evaluation of(Reason reason) {
        return new Evaluation(reason.verdict(), reason, reason.verdict() == Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                "the rules' sentence", null, Instant.EPOCH, "sha256:ab", MEMORY);
    }

    static Stream<Arguments> rows() {
        List<String> one = List.of("/etc/cri/conf.d/cri.toml: expected '='");
        List<String> two = List.of("/a.toml: x", "/b.toml: y");
        return Stream.of(
                Arguments.of(Reason.CONTAINERD_STARTED_AFTER_CONFIG, List.of(), Reason.CONTAINERD_STARTED_AFTER_CONFIG, null),
                Arguments.of(Reason.CONTAINERD_STARTED_AFTER_CONFIG, one, Reason.CONFIG_UNREADABLE,
                        "Config file /etc/cri/conf.d/cri.toml: expected '=' cannot be parsed, so which credential"
                                + " containerd holds is unknown."),
                Arguments.of(Reason.CONFIG_UNCHANGED_SINCE_LOAD, two, Reason.CONFIG_UNREADABLE,
                        "Config file /a.toml: x cannot be parsed (and 1 more), so which credential containerd holds"
                                + " is unknown."),
                Arguments.of(Reason.RUNTIME_STATUS_MATCHES_CONFIG, one, Reason.CONFIG_UNREADABLE, null),
                Arguments.of(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, one, Reason.CONFIG_UNREADABLE, null),
                Arguments.of(Reason.CONTAINERD_NOT_SERVING, one, Reason.CONTAINERD_NOT_SERVING, null),
                Arguments.of(Reason.CONTAINERD_NOT_FOUND, one, Reason.CONTAINERD_NOT_FOUND, null));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("rows")
    void aParseFailureIsUnknownUnlessTheVerdictAlreadyIs(Reason given, List<String> failures, Reason expected,
            String message) {
        Evaluation before = of(given);
        Evaluation after = ConfigParseCheck.apply(before, failures);
        assertEquals(expected, after.reason());
        assertEquals(expected.verdict(), after.verdict());
        if (expected == given) {
            assertSame(before, after);
            return;
        }
        assertEquals(Proof.NONE, after.proof());
        assertEquals(MEMORY, after.memory(), "the memory the rules returned is kept");
        assertEquals("sha256:ab", after.configDigest());
        assertTrue(message == null || message.equals(after.message()), after.message());
    }
}
