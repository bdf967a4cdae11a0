/**
 * Kubernetes calls as the rollout sends them: every write passes the {@link dev.crifresh.coordinator.rollout.api.Fence}
 * right before it is sent, transient errors are retried ({@link dev.crifresh.coordinator.rollout.api.ApiRetry}), and a
 * Node patch is decided on a fresh read and guarded by test ops ({@link dev.crifresh.coordinator.rollout.api.GuardedPatch}).
 * Uses nothing else of the rollout.
 */
@MayUse({"coordinator.kube", "coordinator.time"})
package dev.crifresh.coordinator.rollout.api;

import dev.crifresh.common.arch.MayUse;
