package dev.crifresh.agent.publish;

import dev.crifresh.common.attest.AttestationClaims;

/** The last attestation written to the Node: its claims and the JWS that carried them. */
public record PublishedAttestation(AttestationClaims claims, String token) {
    /** The JWS payload, i.e. the claims exactly as signed (JSON). */
    public String claimsJson() {
        String[] parts = token.split("\\.");
        if (parts.length != 3) {
            throw new IllegalStateException("not a JWS compact token");
        }
        return new String(java.util.Base64.getUrlDecoder().decode(parts[1]), java.nio.charset.StandardCharsets.UTF_8);
    }
}
