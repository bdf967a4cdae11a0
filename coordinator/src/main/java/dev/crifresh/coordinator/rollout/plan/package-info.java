/**
 * What a run will do, decided before it acts and without I/O: each node's decision and action
 * ({@link dev.crifresh.coordinator.rollout.plan.Decisions}, {@link dev.crifresh.coordinator.rollout.plan.RolloutPlan}), the
 * order and the unavailability budget, the ownership a run writes on a node, and what a drain would evict. Plan mode
 * uses it alone. May use {@code coordinator.classify, kube, placement, report}; nothing else of the rollout.
 */
package dev.crifresh.coordinator.rollout.plan;
