package dev.crifresh.coordinator.classify;

import dev.crifresh.common.attest.VerificationFailure;
import java.util.Locale;

/** Reason codes for a rejected attestation: {@code Attestation} + the failure in CamelCase. */
public final class FailureReasons {
    private FailureReasons() {
    }

    /** e.g. {@code EXPIRED → AttestationExpired}, {@code BAD_SIGNATURE → AttestationBadSignature}. */
    public static String of(VerificationFailure failure) {
        StringBuilder sb = new StringBuilder("Attestation");
        for (String part : failure.name().split("_")) {
            sb.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return sb.toString();
    }
}
