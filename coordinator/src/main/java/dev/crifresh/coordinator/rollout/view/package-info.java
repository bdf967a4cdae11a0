/**
 * The run's view of the cluster: its Node informer and the classification kept current with it
 * ({@link dev.crifresh.coordinator.rollout.view.RunInformers}), its copy of each node with the answers of its own patches
 * ({@link dev.crifresh.coordinator.rollout.view.NodeView}), and one node list read shared by the nodes that ask at once.
 * Classification in bulk on worker threads ({@link dev.crifresh.coordinator.rollout.view.BulkClassify}) and the pod
 * counts a drain would evict ({@link dev.crifresh.coordinator.rollout.view.PodCounts}) read the cluster here too.
 */
@MayUse({"coordinator.classify", "coordinator.kube", "coordinator.rollout.plan"})
package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.common.arch.MayUse;
