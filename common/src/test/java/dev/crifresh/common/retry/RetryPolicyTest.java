package dev.crifresh.common.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RetryPolicyTest {
    private static final Duration FOREVER = Duration.ofDays(1);

    static Stream<Arguments> growthAndCap() {
        RetryPolicy api = RetryPolicy.doubling(Duration.ofMillis(100), Duration.ofSeconds(2));
        RetryPolicy lock = RetryPolicy.constant(Duration.ofMillis(300));
        return Stream.of(
                Arguments.of(api, 1, 100), Arguments.of(api, 2, 200), Arguments.of(api, 3, 400),
                Arguments.of(api, 5, 1600), Arguments.of(api, 6, 2000), Arguments.of(api, 7, 2000),
                Arguments.of(api, 1_000_000, 2000),
                Arguments.of(lock, 1, 300), Arguments.of(lock, 9, 300));
    }

    @ParameterizedTest(name = "{0}: attempt {1} waits {2} ms")
    @MethodSource("growthAndCap")
    void doublesFromFirstUpToTheCap(RetryPolicy policy, int attempt, long millis) {
        assertEquals(Duration.ofMillis(millis), policy.delay(attempt));
        assertEquals(Optional.of(Duration.ofMillis(millis)), policy.next(attempt, FOREVER));
    }

    static Stream<Arguments> jitterBounds() {
        return Stream.of(
                // random, attempt, delay: between half and all of the ceiling (500 ms doubling to 30 s)
                Arguments.of(0.0, 1, 250), Arguments.of(0.999_999, 1, 499), Arguments.of(0.5, 1, 375),
                Arguments.of(0.0, 4, 2000), Arguments.of(0.999_999, 4, 3999),
                Arguments.of(0.0, 7, 15_000), Arguments.of(0.999_999, 7, 29_999), Arguments.of(0.0, 1000, 15_000));
    }

    @ParameterizedTest(name = "random {0}, attempt {1}: {2} ms")
    @MethodSource("jitterBounds")
    void jitterDrawsBetweenTheFloorAndTheCeiling(double random, int attempt, long millis) {
        RetryPolicy agent = RetryPolicy.doubling(Duration.ofMillis(500), Duration.ofSeconds(30)).withJitter(0.5, () -> random);
        assertEquals(Duration.ofMillis(millis), agent.delay(attempt));
    }

    static Stream<Arguments> deadline() {
        return Stream.of(
                // minAttempts, attempt, left (ms), expected delay (ms) or -1 for give up
                Arguments.of(0, 1, 10_000, 250L), Arguments.of(0, 4, 10_000, 2000L),
                Arguments.of(0, 4, 700, 700L), Arguments.of(0, 1, 1, 1L),
                Arguments.of(0, 1, 0, -1L), Arguments.of(0, 3, -5, -1L),
                Arguments.of(8, 7, -5_000, 2000L), Arguments.of(8, 7, 100, 2000L),
                Arguments.of(8, 8, 100, 100L), Arguments.of(8, 8, 0, -1L), Arguments.of(8, 40, 5_000, 2000L));
    }

    @ParameterizedTest(name = "minAttempts {0}, attempt {1}, {2} ms left: {3}")
    @MethodSource("deadline")
    void theDeadlineEndsRetriesAndBoundsTheLastDelay(int minAttempts, int attempt, long leftMillis, long expected) {
        RetryPolicy policy = RetryPolicy.doubling(Duration.ofMillis(250), Duration.ofSeconds(2)).withMinAttempts(minAttempts);
        Optional<Duration> next = policy.next(attempt, Duration.ofMillis(leftMillis));
        assertEquals(expected < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(expected)), next);
    }

    static Stream<Arguments> nonsense() {
        return Stream.of(
                Arguments.of(Duration.ZERO, Duration.ofSeconds(1), 0.0, 0),
                Arguments.of(Duration.ofSeconds(2), Duration.ofSeconds(1), 0.0, 0),
                Arguments.of(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.0, 0),
                Arguments.of(Duration.ofSeconds(1), Duration.ofSeconds(1), -0.1, 0),
                Arguments.of(Duration.ofSeconds(1), Duration.ofSeconds(1), Double.NaN, 0),
                Arguments.of(Duration.ofSeconds(1), Duration.ofSeconds(1), 0.0, -1));
    }

    @ParameterizedTest(name = "first {0}, cap {1}, jitter {2}, minAttempts {3}")
    @MethodSource("nonsense")
    void rejectsNonsense(Duration first, Duration cap, double jitter, int minAttempts) {
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(first, cap, jitter, minAttempts, Math::random));
    }
}
