package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Each {@code with…} changes only its own fields; file claims come from readable files only. */
class AttestationClaimsTest {
    private static final AttestationClaims C = Claims.full(Verdict.FRESH);

    @SuppressWarnings("checkstyle:parameternumber") // spells every field a with… may change, so each test shows the ones it keeps
    private static AttestationClaims claims(int v, String sub, String nodeUid, String bootId, Instant iat, Instant exp,
            Verdict verdict, String reason, Proof proof, String agent) {
        return new AttestationClaims(v, C.iss(), sub, nodeUid, bootId, iat, exp, verdict, reason, proof,
                C.containerd(), C.config(), C.registries(), C.marginMs(), agent);
    }

    @Test
    void withSubjectChangesNameAndUid() {
        assertEquals(claims(C.v(), "worker-2", "uid-2", C.bootId(), C.iat(), C.exp(), C.verdict(), C.reason(),
                C.proof(), C.agent()), C.withSubject("worker-2", "uid-2"));
    }

    @Test
    void withBootIdChangesTheBootId() {
        assertEquals(claims(C.v(), C.sub(), C.nodeUid(), "boot-2", C.iat(), C.exp(), C.verdict(), C.reason(),
                C.proof(), C.agent()), C.withBootId("boot-2"));
    }

    @Test
    void withVerdictChangesVerdictReasonAndProof() {
        assertEquals(claims(C.v(), C.sub(), C.nodeUid(), C.bootId(), C.iat(), C.exp(), Verdict.STALE, "Changed",
                Proof.NONE, C.agent()), C.withVerdict(Verdict.STALE, "Changed", Proof.NONE));
    }

    @Test
    void withTimesChangesIatAndExp() {
        Instant iat = C.iat().plusSeconds(7);
        assertEquals(claims(C.v(), C.sub(), C.nodeUid(), C.bootId(), iat, iat.plusSeconds(60), C.verdict(),
                C.reason(), C.proof(), C.agent()), C.withTimes(iat, iat.plusSeconds(60)));
    }

    @Test
    void withVersionAndWithAgent() {
        assertEquals(claims(2, C.sub(), C.nodeUid(), C.bootId(), C.iat(), C.exp(), C.verdict(), C.reason(),
                C.proof(), C.agent()), C.withVersion(2));
        assertEquals(claims(C.v(), C.sub(), C.nodeUid(), C.bootId(), C.iat(), C.exp(), C.verdict(), C.reason(),
                C.proof(), "other/1"), C.withAgent("other/1"));
    }

    @Test
    void aFileClaimIsMadeOnlyFromAReadableFile() {
        Instant mtime = Instant.parse("2025-05-01T09:00:01.123456789Z");
        assertEquals(new FileClaim("/etc/cri/a.toml", mtime, "aa11"),
                FileClaim.of(WatchedFile.readable("/etc/cri/a.toml", mtime, 12, "aa11")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FileClaim.of(WatchedFile.unreadable("/etc/cri/a.toml", "permission denied")));
        assertEquals("/etc/cri/a.toml was not read: permission denied", e.getMessage());
    }
}
