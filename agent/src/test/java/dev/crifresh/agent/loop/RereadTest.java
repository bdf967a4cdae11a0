package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.crifresh.common.retry.Retry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When an evaluation that caught a file mid-write is read again, and when it is handed on as it is. */
class RereadTest {
    private static final List<String> TORN = List.of("/etc/cri/conf.d/cri.toml");

    @Test
    void aSettledEvaluationIsHandedOnWhateverCameBefore() {
        assertEquals(new Reread.HandOn(false), Reread.after(null, List.of(), 0));
        Retry three = new Retry(Reread.POLICY, 3, 0);
        assertEquals(new Reread.HandOn(false), Reread.after(three, List.of(), 100));
    }

    @Test
    void aTornOneIsReadAgainSevenTimesDoublingFromFiveToFortyMillisThenHandedOnTorn() {
        List<Long> delays = new ArrayList<>();
        Retry retry = null;
        Reread.Next next = Reread.after(retry, TORN, 1_000);
        while (next instanceof Reread.ReadAgain again) {
            assertEquals(1_000, again.retry().firstAttemptMillis(), "the first torn read starts the retry");
            delays.add(again.after().toMillis());
            retry = again.retry();
            next = Reread.after(retry, TORN, 1_000 + 50L * delays.size());
        }
        assertEquals(List.of(5L, 10L, 20L, 40L, 40L, 40L, 40L), delays);
        assertEquals(Reread.REREADS, retry.failures());
        assertEquals(new Reread.HandOn(true), next);
    }

    @Test
    void aTornReadAfterASettledOneStartsAFreshRetry() {
        Reread.Next next = Reread.after(null, TORN, 7);
        Reread.ReadAgain again = assertInstanceOf(Reread.ReadAgain.class, next);
        assertEquals(new Retry(Reread.POLICY, 1, 7), again.retry());
        assertEquals(Duration.ofMillis(5), again.after());
    }
}
