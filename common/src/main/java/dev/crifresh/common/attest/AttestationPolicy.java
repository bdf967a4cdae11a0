package dev.crifresh.common.attest;

import java.time.Duration;

/**
 * Limits that bound what a signed attestation may claim, enforced where the decision is made (the
 * coordinator) and refused up front by the agent's flags, so a misconfigured agent fails loudly instead
 * of publishing tokens the coordinator rejects.
 *
 * @param maxValidity the longest {@code exp − iat} accepted: a longer-lived token would keep a node
 *                    "fresh" long after its agent stopped looking
 * @param marginFloor the smallest {@code margin_ms} a fresh verdict may have been decided with: a smaller
 *                    margin is below the error of reading the clocks
 */
public record AttestationPolicy(Duration maxValidity, Duration marginFloor) {
    public static final Duration DEFAULT_MAX_VALIDITY = Duration.ofHours(1);
    public static final Duration DEFAULT_MARGIN_FLOOR = Duration.ofMillis(20);

    public AttestationPolicy {
        if (maxValidity == null || maxValidity.isZero() || maxValidity.isNegative()) {
            throw new IllegalArgumentException("maximum validity must be positive, got: " + maxValidity);
        }
        if (marginFloor == null || marginFloor.isNegative()) {
            throw new IllegalArgumentException("margin floor must not be negative, got: " + marginFloor);
        }
    }

    public static AttestationPolicy defaults() {
        return new AttestationPolicy(DEFAULT_MAX_VALIDITY, DEFAULT_MARGIN_FLOOR);
    }
}
