package dev.crifresh.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClaimsFactoryTest {
    private static final Instant BOOT = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration VALIDITY = Duration.ofMinutes(15);

    private static Assessment freshAssessmentObservedAt(Instant observedAt) {
        ProcessSample containerd = new ProcessSample(42, 600, List.of("/bin/containerd"));
        Observation o = new Observation("boot-1", new BootClock(BOOT, Duration.ofMillis(10)), null, 100,
                List.of(containerd), List.of(WatchedFile.readable("/etc/cri/containerd.toml", BOOT.plusSeconds(3), 10, "ab")),
                observedAt);
        Evaluation e = new Evaluation(Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING,
                "fresh", containerd, BOOT.plusSeconds(6), "sha256:00", null);
        return new Assessment(o, e, Map.of(), 0);
    }

    @Test
    void expiryCountsFromTheObservationNotFromTheSigning() {
        Instant observed = BOOT.plusSeconds(3600);
        Instant signedLater = observed.plus(Duration.ofMinutes(20));
        AttestationClaims c = ClaimsFactory.claims(freshAssessmentObservedAt(observed), "n", "uid", signedLater,
                VALIDITY, Duration.ofMillis(50), "test");
        assertEquals(signedLater, c.iat());
        assertEquals(observed.plus(VALIDITY), c.exp(), "a re-signed old assessment must not vouch past its evidence");
    }

    @Test
    void aTimelyPublishIsValidForTheFullValidity() {
        Instant observed = Instant.parse("2026-01-01T01:00:00.700Z");
        AttestationClaims c = ClaimsFactory.claims(freshAssessmentObservedAt(observed), "n", "uid",
                observed.plusMillis(200), VALIDITY, Duration.ofMillis(50), "test");
        assertEquals(Instant.parse("2026-01-01T01:00:00Z"), c.iat());
        assertEquals(Instant.parse("2026-01-01T01:15:00Z"), c.exp());
    }
}
