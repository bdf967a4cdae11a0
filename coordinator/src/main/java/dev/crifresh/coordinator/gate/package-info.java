/**
 * The rollout gates (pull proof, etcd health, blockers), wired together for plan mode and the rollout.
 */
@MayUse({
        "coordinator.base",
        "coordinator.classify",
        "coordinator.gate.block",
        "coordinator.gate.etcd",
        "coordinator.gate.pull",
        "coordinator.time"})
package dev.crifresh.coordinator.gate;

import dev.crifresh.common.arch.MayUse;
