package dev.crifresh.common.kube;

import java.util.Optional;

/** The condition message: one human sentence, then {@code ; attestation=<JWS>}. */
public final class AttestationMessage {
    private AttestationMessage() {
    }

    public static String format(String sentence, String token) {
        return sentence + ConditionContract.ATTESTATION_MARKER + token;
    }

    /** The token after the last marker, or empty when the message carries none. */
    public static Optional<String> token(String message) {
        if (message == null) {
            return Optional.empty();
        }
        int at = message.lastIndexOf(ConditionContract.ATTESTATION_MARKER);
        if (at < 0) {
            return Optional.empty();
        }
        String token = message.substring(at + ConditionContract.ATTESTATION_MARKER.length()).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /** The human sentence before the marker (the whole message when there is no marker). */
    public static String sentence(String message) {
        if (message == null) {
            return "";
        }
        int at = message.lastIndexOf(ConditionContract.ATTESTATION_MARKER);
        return at < 0 ? message : message.substring(0, at);
    }
}
