/**
 * The rollout: cordon, drain, reboot, verify and uncordon exactly the stale nodes, one run at a time under a Lease.
 * Its code lives in sub-packages, layered api &lt; lease &lt; plan &lt; node &lt; view &lt; observe &lt; run (the
 * {@code @Layers} below): each may use only the ones before it, and its own {@code @MayUse} says which.
 * {@code api} (Kubernetes calls under the fence), {@code lease} (the Lease and its fences), {@code plan} (what the
 * run will do, decided up front, without I/O), {@code node} (one node's machine and its effects), {@code view} (the
 * run's copy of the cluster), {@code observe} (what the run tells and marks), {@code run} (the run machine and the
 * entry point {@link dev.crifresh.coordinator.rollout.run.Rollout}). Every one may also use the packages below the
 * rollout that it lists ({@code coordinator.base}, {@code classify}, {@code kube}, …); none of those imports from
 * the rollout — only {@code Coordinator} and plan mode do.
 */
@Layers({"api", "lease", "plan", "node", "view", "observe", "run"})
@MayUse({})
package dev.crifresh.coordinator.rollout;

import dev.crifresh.common.arch.Layers;
import dev.crifresh.common.arch.MayUse;
