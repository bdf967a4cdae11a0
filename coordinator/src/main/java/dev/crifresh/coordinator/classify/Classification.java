package dev.crifresh.coordinator.classify;

import dev.crifresh.common.attest.AttestationClaims;

/**
 * One node's verdict with the reason behind it.
 *
 * @param reason            a CamelCase code: the agent's reason for a valid attestation, an
 *                          {@code Attestation…} code when the verifier rejected it (see
 *                          {@link FailureReasons}), or {@link NodeClassifier#CONFIG_PENDING_REASON}
 * @param detail            one human sentence
 * @param markerSaysCurrent whether the machine-config marker claims the node is current
 * @param claims            the verified claims, null when the attestation was rejected
 */
public record Classification(
        NodeFacts node,
        NodeVerdict verdict,
        String reason,
        String detail,
        boolean markerSaysCurrent,
        AttestationClaims claims) {

    /** The marker claims "current" while containerd is proven stale or cannot be trusted. */
    public boolean markerContradicts() {
        return markerSaysCurrent && verdict.needsReboot();
    }

    public String name() {
        return node.name();
    }
}
