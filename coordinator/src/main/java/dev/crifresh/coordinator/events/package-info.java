/**
 * The Kubernetes Events a run records on the Nodes it touches.
 */
@MayUse({"coordinator.base", "coordinator.kube"})
package dev.crifresh.coordinator.events;

import dev.crifresh.common.arch.MayUse;
