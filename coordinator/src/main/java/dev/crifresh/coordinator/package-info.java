/**
 * The coordinator, embeddable: {@link dev.crifresh.coordinator.Coordinator} (the entry point of the CLI and the
 * simulator) and plan mode. The top of the module.
 */
@MayUse({
        "coordinator.base",
        "coordinator.classify",
        "coordinator.driver",
        "coordinator.gate",
        "coordinator.kube",
        "coordinator.placement",
        "coordinator.report",
        "coordinator.rollout.observe",
        "coordinator.rollout.plan",
        "coordinator.rollout.run",
        "coordinator.rollout.view",
        "coordinator.silence"})
package dev.crifresh.coordinator;

import dev.crifresh.common.arch.MayUse;
