package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Claims fixtures for the attestation tests. */
final class Claims {
    static final Instant IAT = Instant.parse("2025-05-01T10:00:00Z");
    static final Instant EXP = IAT.plusSeconds(15 * 60);

    private Claims() {
    }

    static AttestationClaims full(Verdict verdict) {
        return new AttestationClaims(1, AttestationClaims.ISSUER, "worker-1", "uid-1111", "boot-aaaa", IAT, EXP,
                verdict, verdict == Verdict.FRESH ? "ContainerdStartedAfterConfig" : "ConfigChangedAfterContainerdStart",
                verdict == Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                new ContainerdClaim(1234, 5678, 100, Instant.parse("2025-05-01T09:00:56.780Z")),
                new ConfigClaim("sha256:abcd", List.of(
                        new FileClaim("/etc/cri/containerd.toml", Instant.parse("2025-05-01T09:00:01.123456789Z"), "aa11"),
                        new FileClaim("/etc/cri/conf.d/cri.toml", Instant.parse("2025-05-01T09:00:01.2Z"), "bb22"))),
                Map.of("registry.example.com", "fp-one", "docker.io", "fp-two"), 50, "crifresh/0.1.0");
    }

    static AttestationClaims with(AttestationClaims c, String sub, String nodeUid, String bootId) {
        return c.withSubject(sub, nodeUid).withBootId(bootId);
    }

    static AttestationClaims times(AttestationClaims c, Instant iat, Instant exp) {
        return c.withTimes(iat, exp);
    }

    static AttestationClaims version(AttestationClaims c, int v) {
        return c.withVersion(v);
    }

    static AttestationClaims agent(AttestationClaims c, String agent) {
        return c.withAgent(agent);
    }
}
