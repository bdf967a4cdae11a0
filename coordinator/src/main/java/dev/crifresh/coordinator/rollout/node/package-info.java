/**
 * One node's way through a rollout: the pure step function ({@link dev.crifresh.coordinator.rollout.node.NodeStep},
 * {@code RebootStep}) over sealed states, inputs and effects, and the one effect runner that carries the effects out
 * ({@link dev.crifresh.coordinator.rollout.node.NodeRunner}: drain, last-moment check, reboot request, verify, uncordon),
 * through its ports ({@link dev.crifresh.coordinator.rollout.node.RollPorts}) and the run it belongs to
 * ({@link dev.crifresh.coordinator.rollout.node.RollHost}). The drain is a step function of its own
 * ({@link dev.crifresh.coordinator.rollout.node.DrainStep}) with its runner
 * ({@link dev.crifresh.coordinator.rollout.node.DrainRunner}).
 */
@MayUse({
        "coordinator.base",
        "coordinator.classify",
        "coordinator.events",
        "coordinator.gate",
        "coordinator.kube",
        "coordinator.report",
        "coordinator.rollout.api",
        "coordinator.rollout.plan",
        "coordinator.time"})
package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.common.arch.MayUse;
