package dev.crifresh.agent.expire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.agent.kube.LeaseRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every {@link LeaseStep} a candidate can take. */
class LeaseDecisionTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration D = Duration.ofSeconds(40);

    @Test
    void noLeaseIsCreatedHeldByUs() {
        assertEquals(new LeaseStep.Create(new LeaseRecord("a", 40, NOW, NOW, 0, null)),
                LeaseDecision.decide(Optional.empty(), "a", NOW, D));
    }

    @Test
    void ourOwnLeaseIsRenewedKeepingItsAcquireTime() {
        LeaseRecord ours = new LeaseRecord("a", 40, NOW.minusSeconds(300), NOW.minusSeconds(20), 3, "11");
        assertEquals(new LeaseStep.Update(new LeaseRecord("a", 40, NOW.minusSeconds(300), NOW, 3, "11"), false),
                LeaseDecision.decide(Optional.of(ours), "a", NOW, D));
    }

    @Test
    void ourOwnLeaseIsRenewedEvenAfterItRanOut() {
        LeaseRecord ours = new LeaseRecord("a", 40, NOW.minusSeconds(300), NOW.minusSeconds(100), 3, "11");
        assertEquals(new LeaseStep.Update(new LeaseRecord("a", 40, NOW.minusSeconds(300), NOW, 3, "11"), false),
                LeaseDecision.decide(Optional.of(ours), "a", NOW, D));
    }

    @Test
    void anotherHoldersLiveLeaseIsFollowedUntilItRunsOut() {
        LeaseRecord theirs = new LeaseRecord("b", 40, NOW.minusSeconds(300), NOW.minusSeconds(39), 3, "11");
        assertEquals(new LeaseStep.Follow("b", NOW.plusSeconds(1)), LeaseDecision.decide(Optional.of(theirs), "a", NOW, D));
    }

    @Test
    void aLeaseNotRenewedForItsDurationIsTakenOver() {
        LeaseRecord theirs = new LeaseRecord("b", 40, NOW.minusSeconds(300), NOW.minusSeconds(40), 3, "11");
        assertEquals(new LeaseStep.Update(new LeaseRecord("a", 40, NOW, NOW, 4, "11"), true),
                LeaseDecision.decide(Optional.of(theirs), "a", NOW, D));
    }

    @Test
    void theHoldersOwnDurationCountsNotOurs() {
        LeaseRecord theirs = new LeaseRecord("b", 120, NOW.minusSeconds(300), NOW.minusSeconds(100), 3, "11");
        assertEquals(new LeaseStep.Follow("b", NOW.plusSeconds(20)), LeaseDecision.decide(Optional.of(theirs), "a", NOW, D));
        LeaseRecord noDuration = new LeaseRecord("b", 0, null, NOW.minusSeconds(30), 0, "11");
        assertEquals(new LeaseStep.Follow("b", NOW.plusSeconds(10)), LeaseDecision.decide(Optional.of(noDuration), "a", NOW, D));
    }

    @Test
    void aReleasedOrNeverRenewedLeaseIsTakenAtOnce() {
        LeaseRecord released = new LeaseRecord("", 40, null, NOW, 5, "11");
        assertEquals(new LeaseStep.Update(new LeaseRecord("a", 40, NOW, NOW, 6, "11"), true),
                LeaseDecision.decide(Optional.of(released), "a", NOW, D));
        LeaseRecord neverRenewed = new LeaseRecord("b", 40, null, null, 0, "11");
        assertEquals(new LeaseStep.Update(new LeaseRecord("a", 40, NOW, NOW, 1, "11"), true),
                LeaseDecision.decide(Optional.of(neverRenewed), "a", NOW, D));
    }
}
