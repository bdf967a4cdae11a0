/**
 * What a run will do, decided before it acts and without I/O: each node's decision and action
 * ({@link dev.crifresh.coordinator.rollout.plan.Decisions}, {@link dev.crifresh.coordinator.rollout.plan.RolloutPlan}), the
 * order and the unavailability budget, the ownership a run writes on a node, and what a drain would evict. Plan mode
 * uses it alone; it uses nothing else of the rollout. {@code @NoIo}: no class here uses the Kubernetes client, Vert.x,
 * {@code java.io}, {@code java.nio} or {@code java.net}, nor a coordinator type that does (the seams such as
 * {@code PodOps}); pod counts and bulk classification, which do, live in {@code rollout.view}.
 */
@NoIo
@MayUse({"coordinator.base", "coordinator.classify", "coordinator.kube", "coordinator.placement", "coordinator.report"})
package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
