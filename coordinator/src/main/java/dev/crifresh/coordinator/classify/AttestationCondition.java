package dev.crifresh.coordinator.classify;

/** The {@code ContainerdConfigFresh} condition as found on a Node. */
public record AttestationCondition(String status, String reason, String message) {
}
