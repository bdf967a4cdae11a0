package dev.crifresh.coordinator.gate;

/**
 * One gate's finding, for the report.
 *
 * @param gate   {@code pull-proof}, {@code etcd}, {@code alert} or {@code pod}
 * @param node   the node it concerns, or null for the cluster
 * @param result {@code passed}, {@code failed}, {@code blocked} (a plan: it would wait), {@code waited}
 *               (a rollout waited, then went on), {@code timed-out} or {@code not-checked}
 * @param detail one human sentence
 */
public record GateNote(String gate, String node, String result, String detail) {
}
