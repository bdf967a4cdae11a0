/**
 * What a run tells and the marks it leaves: its typed events ({@link dev.crifresh.coordinator.rollout.observe.RunEvent})
 * turned into progress lines and Kubernetes Events ({@link dev.crifresh.coordinator.rollout.observe.RunObserver}), the
 * taint on stale nodes it cannot reboot, and its Alertmanager silences.
 */
@MayUse({
        "coordinator.base",
        "coordinator.classify",
        "coordinator.events",
        "coordinator.kube",
        "coordinator.placement",
        "coordinator.report",
        "coordinator.rollout.api",
        "coordinator.silence"})
package dev.crifresh.coordinator.rollout.observe;

import dev.crifresh.common.arch.MayUse;
