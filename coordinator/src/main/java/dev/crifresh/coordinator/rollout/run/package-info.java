/**
 * The run: its pure step function ({@link dev.crifresh.coordinator.rollout.run.RunStep}) and the loop that carries out its
 * effects, the preflight, the nodes' rolls under the budget, the waits and the report, wired together by the entry point
 * {@link dev.crifresh.coordinator.rollout.run.Rollout}. The top of the rollout: may use every other rollout package and
 * the coordinator packages below it that it lists; only {@code Rollout} is public.
 */
@MayUse({
        "coordinator.base",
        "coordinator.classify",
        "coordinator.driver",
        "coordinator.events",
        "coordinator.gate",
        "coordinator.kube",
        "coordinator.placement",
        "coordinator.report",
        "coordinator.rollout.api",
        "coordinator.rollout.lease",
        "coordinator.rollout.node",
        "coordinator.rollout.observe",
        "coordinator.rollout.plan",
        "coordinator.rollout.view",
        "coordinator.silence",
        "coordinator.time"})
package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.common.arch.MayUse;
