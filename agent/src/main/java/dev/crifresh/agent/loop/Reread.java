package dev.crifresh.agent.loop;

import dev.crifresh.common.retry.Retry;
import dev.crifresh.common.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;

/**
 * Whether the loop reads the node again before it hands an assessment on: one that caught a watched file mid-write
 * ({@link Assessment#torn()}) is read again after {@link #POLICY}'s delay, at most {@link #REREADS} times in a row; then
 * the torn assessment itself is handed on (the file unreadable: {@code Unknown/ConfigUnreadable}, never fresh). Until
 * then the condition published before stands, for about 200 ms of waits plus the reads. Pure: the loop keeps the
 * {@link Retry} and owns the timer.
 */
final class Reread {
    /** 5 ms doubling to 40 ms, no jitter (one agent, one file: nothing to spread). */
    static final RetryPolicy POLICY = RetryPolicy.doubling(Duration.ofMillis(5), Duration.ofMillis(40));
    /** Re-reads in a row before a file that keeps changing is published unreadable: 5+10+20+40·4 = 195 ms of waits. */
    static final int REREADS = 7;

    /** What follows an evaluation. */
    sealed interface Next permits HandOn, ReadAgain {
    }

    /**
     * Hand the assessment on; the loop keeps no retry.
     *
     * @param gaveUp the assessment is torn: {@link #REREADS} re-reads did not settle it
     */
    record HandOn(boolean gaveUp) implements Next {
    }

    /** Hand nothing on: read the node again after {@code after}, keeping {@code retry}. */
    record ReadAgain(Retry retry, Duration after) implements Next {
    }

    private Reread() {
    }

    /**
     * @param retry     the re-reads so far in a row (null: the last evaluation was not torn)
     * @param torn      the files the evaluation found changing while read
     * @param nowMillis the loop's clock, for the retry's first attempt
     */
    static Next after(Retry retry, List<String> torn, long nowMillis) {
        if (torn.isEmpty()) {
            return new HandOn(false);
        }
        Retry failed = (retry == null ? Retry.first(POLICY, nowMillis) : retry).failed();
        if (failed.failures() > REREADS) {
            return new HandOn(true);
        }
        return new ReadAgain(failed, failed.delay());
    }
}
