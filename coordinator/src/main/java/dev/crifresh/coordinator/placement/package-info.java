/**
 * Where a rollout steers evicted pods: the stale taint, the fresh nodes and the seed node.
 */
@NoIo
@MayUse({"coordinator.base", "coordinator.classify", "coordinator.kube"})
package dev.crifresh.coordinator.placement;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
