package dev.crifresh.agent.publish;

import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.ConfigClaim;
import dev.crifresh.common.attest.ContainerdClaim;
import dev.crifresh.common.attest.FileClaim;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The attestation claims (docs/design.md, "The attestation and its verifier") for one assessment of one Node. */
public final class ClaimsFactory {
    private ClaimsFactory() {
    }

    /**
     * {@code iat} is the signing time; {@code exp} counts from when the evidence was read, not from the
     * signing: a re-publish of an old assessment (a retry, a restored condition) never extends what an
     * old observation vouches for, and an agent whose reads hang lets its attestation expire.
     *
     * @param now      the signing time; {@code iat} is it in whole seconds
     * @param validity {@code exp = observedAt + validity} in whole seconds (never after {@code iat + validity})
     * @param nodeUid  {@code metadata.uid} of the Node the claims will be written to
     */
    public static AttestationClaims claims(Assessment assessment, String nodeName, String nodeUid, Instant now,
                                           Duration validity, Duration margin, String agentVersion) {
        Observation o = assessment.observation();
        Evaluation e = assessment.evaluation();
        Instant iat = now.truncatedTo(ChronoUnit.SECONDS);
        Instant observed = o.observedAt() == null || o.observedAt().isAfter(iat)
                ? iat : o.observedAt().truncatedTo(ChronoUnit.SECONDS);
        ContainerdClaim containerd = e.containerd() == null ? null
                : new ContainerdClaim(e.containerd().pid(), e.containerd().startTicks(), o.clkTck(),
                        e.containerdStartedAt());
        ConfigClaim config = null;
        if (e.configDigest() != null) {
            List<FileClaim> files = o.files().stream()
                    .filter(WatchedFile::isReadable)
                    .map(FileClaim::of)
                    .toList();
            config = new ConfigClaim(e.configDigest(), files);
        }
        return new AttestationClaims(AttestationClaims.VERSION, AttestationClaims.ISSUER, nodeName, nodeUid,
                o.bootId(), iat, observed.plus(validity), e.verdict(), e.reason().code(), e.proof(), containerd, config,
                assessment.registries(), margin.toMillis(), agentVersion);
    }
}
