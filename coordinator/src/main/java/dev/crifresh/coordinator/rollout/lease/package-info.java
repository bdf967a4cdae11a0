/**
 * The rollout Lease: taking, renewing and releasing it (the pure step {@link dev.crifresh.coordinator.rollout.lease.LeaseStep}
 * over sealed states, inputs and effects, run by {@link dev.crifresh.coordinator.rollout.lease.LeaseKeeper}), and
 * the fences built on it — the run's own ({@link dev.crifresh.coordinator.rollout.lease.LeaseFence}) and the check
 * repeated on the worker thread right before a blocking call is sent ({@link dev.crifresh.coordinator.rollout.lease.WorkerFence}).
 */
@MayUse({"coordinator.base", "coordinator.driver", "coordinator.kube", "coordinator.rollout.api", "coordinator.time"})
package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.common.arch.MayUse;
