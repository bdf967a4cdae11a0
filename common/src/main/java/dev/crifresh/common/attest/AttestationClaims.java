package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import java.time.Instant;
import java.util.Map;

/**
 * The JWS payload (docs/design.md, "The attestation and its verifier"). JSON names: {@code v, iss, sub, node_uid, boot_id, iat, exp, verdict,
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

    /** The same claims about another node: {@code sub} is its name, {@code nodeUid} its {@code metadata.uid}. */
    public AttestationClaims withSubject(String sub, String nodeUid) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }

    public AttestationClaims withBootId(String bootId) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }

    /** Another verdict; reason and proof change with it, as they always go together. */
    public AttestationClaims withVerdict(Verdict verdict, String reason, Proof proof) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }

    public AttestationClaims withTimes(Instant iat, Instant exp) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }

    public AttestationClaims withVersion(int v) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }

    public AttestationClaims withAgent(String agent) {
        return new AttestationClaims(v, iss, sub, nodeUid, bootId, iat, exp, verdict, reason, proof, containerd,
                config, registries, marginMs, agent);
    }
}
