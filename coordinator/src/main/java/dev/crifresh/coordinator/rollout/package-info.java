/**
 * The rollout: cordon, drain, reboot, verify and uncordon exactly the stale nodes, one run at a time under a Lease.
 * Its code lives in sub-packages, each of which may use only the ones listed before it:
 * {@code api} (Kubernetes calls under the fence), {@code lease} (the Lease and its fences), {@code plan} (what the
 * run will do, decided up front), {@code node} (one node's machine and its effects), {@code view} (the run's copy of
 * the cluster), {@code observe} (what the run tells and marks), {@code run} (the run machine and the entry point
 * {@link dev.crifresh.coordinator.rollout.run.Rollout}). Every one may also use the coordinator's top-level types
 * (settings, actions, the progress listener) and the packages below the rollout; none of those imports from it — only
 * {@code Coordinator} does (and the settings and the sim name {@code plan.MaxUnavailable}).
 */
package dev.crifresh.coordinator.rollout;
