package dev.crifresh.agent.publish;

import dev.crifresh.common.attest.AttestationClaims;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The last attestation written to the Node: its claims and the JWS that carried them. */
public record PublishedAttestation(AttestationClaims claims, String token) {
    /** The JWS payload, i.e. the claims exactly as signed (JSON). */
    public String claimsJson() {
        String[] parts = token.split("\\.");
        if (parts.length != 3) {
            throw new IllegalStateException("not a JWS compact token");
        }
        return new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    }
}
