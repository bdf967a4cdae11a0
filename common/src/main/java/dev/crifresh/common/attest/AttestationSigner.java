package dev.crifresh.common.attest;

import java.nio.charset.StandardCharsets;

/**
 * Signs claims as a JWS compact token with header
 * {@code {"alg":"EdDSA","typ":"crifresh-attestation+jwt","kid":"<thumbprint>"}}.
 */
public final class AttestationSigner {
    public static final String TYP = "crifresh-attestation+jwt";

    private final SigningKey key;
    private final String headerJson;

    public AttestationSigner(SigningKey key) {
        this.key = key;
        // Written by hand so the member order is fixed; the kid is a base64url thumbprint (no escaping needed).
        this.headerJson = "{\"alg\":\"EdDSA\",\"typ\":\"" + TYP + "\",\"kid\":\"" + key.kid() + "\"}";
    }

    public String sign(AttestationClaims claims) {
        return Jws.sign(headerJson, ClaimsJson.write(claims).getBytes(StandardCharsets.UTF_8), key.privateKey());
    }
}
