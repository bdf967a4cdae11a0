package dev.crifresh.common.evidence;

/**
 * The Ready condition the kubelet last wrote on the agent's own Node, as the agent's Node watch delivered it.
 * Absent (null where it is passed) when the agent has no Node information: the observe command, an API server
 * not reached yet, a Node without a Ready condition.
 *
 * @param status  {@code True}, {@code False} or {@code Unknown} as written (null when the field is missing)
 * @param reason  the condition's reason (e.g. {@code KubeletNotReady}), or null
 * @param message the condition's message, or null
 */
public record KubeletReady(String status, String reason, String message) {
}
