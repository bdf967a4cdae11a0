/**
 * The run's view of the cluster: its Node informer and the classification kept current with it
 * ({@link dev.crifresh.coordinator.rollout.view.RunInformers}), its copy of each node with the answers of its own patches
 * ({@link dev.crifresh.coordinator.rollout.view.NodeView}), and one node list read shared by the nodes that ask at once.
 * May use {@code rollout.plan} and {@code coordinator.classify, kube}.
 */
package dev.crifresh.coordinator.rollout.view;
