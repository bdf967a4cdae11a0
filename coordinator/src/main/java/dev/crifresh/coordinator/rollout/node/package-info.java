/**
 * One node's way through a rollout: the pure step function ({@link dev.crifresh.coordinator.rollout.node.NodeStep},
 * {@code RebootStep}) over sealed states, inputs and effects, and the one effect runner that carries the effects out
 * ({@link dev.crifresh.coordinator.rollout.node.NodeRoll}: drain, last-moment check, reboot request, verify, uncordon),
 * through what the run lends it ({@link dev.crifresh.coordinator.rollout.node.RollHost}).
 * May use {@code rollout.api}, {@code rollout.plan}, and {@code coordinator.classify, gate, driver, events, kube, report, time}.
 */
package dev.crifresh.coordinator.rollout.node;
