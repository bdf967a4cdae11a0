package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import java.time.Instant;
import java.util.Map;

/**
 * The JWS payload (DESIGN §4). JSON names: {@code v, iss, sub, node_uid, boot_id, iat, exp, verdict,
 * reason, proof, containerd, config, registries, margin_ms, agent}; {@code iat}/{@code exp} are
 * NumericDate (seconds since the epoch). {@code containerd} and {@code config} may be null when the
 * verdict is unknown. Unknown JSON fields are ignored on read.
 */
public record AttestationClaims(
        int v,
        String iss,
        String sub,
        String nodeUid,
        String bootId,
        Instant iat,
        Instant exp,
        Verdict verdict,
        String reason,
        Proof proof,
        ContainerdClaim containerd,
        ConfigClaim config,
        Map<String, String> registries,
        long marginMs,
        String agent) {

    public static final int VERSION = 1;
    public static final String ISSUER = "crifresh-agent";

    public AttestationClaims {
        registries = registries == null ? Map.of() : Map.copyOf(registries);
    }
}
