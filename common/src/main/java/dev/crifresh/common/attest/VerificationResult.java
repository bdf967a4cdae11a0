package dev.crifresh.common.attest;

/** The verifier's typed answer: valid claims, or the precise failure with a human detail. */
public sealed interface VerificationResult {

    record Valid(AttestationClaims claims, String kid) implements VerificationResult {
    }

    record Invalid(VerificationFailure failure, String detail) implements VerificationResult {
    }

    default boolean isValid() {
        return this instanceof Valid;
    }
}
