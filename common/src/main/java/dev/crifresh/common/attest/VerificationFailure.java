package dev.crifresh.common.attest;

/** Why an attestation is not trusted. Every failure makes the node unknown, which means reboot. */
public enum VerificationFailure {
    MISSING,
    MALFORMED,
    UNSUPPORTED_ALGORITHM,
    UNTRUSTED_KEY,
    BAD_SIGNATURE,
    UNSUPPORTED_VERSION,
    WRONG_NODE,
    WRONG_NODE_UID,
    WRONG_BOOT,
    ISSUED_IN_FUTURE,
    EXPIRED,
    /** {@code exp} before {@code iat}, or {@code exp − iat} above {@link AttestationPolicy#maxValidity()}. */
    INVALID_LIFETIME,
    STATUS_MISMATCH
}
