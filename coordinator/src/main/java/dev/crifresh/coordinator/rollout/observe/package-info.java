/**
 * What a run tells and the marks it leaves: its typed events ({@link dev.crifresh.coordinator.rollout.observe.RunEvent})
 * turned into progress lines and Kubernetes Events ({@link dev.crifresh.coordinator.rollout.observe.RunObserver}), the
 * taint on stale nodes it cannot reboot, and its Alertmanager silences.
 * May use {@code rollout.api} and {@code coordinator.classify, events, kube, placement, report, silence}.
 */
package dev.crifresh.coordinator.rollout.observe;
