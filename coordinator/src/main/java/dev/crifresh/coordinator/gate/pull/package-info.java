/**
 * The pull proof: a probe pod that pulls the private image on a returned node.
 */
@MayUse({"coordinator.base", "coordinator.time"})
package dev.crifresh.coordinator.gate.pull;

import dev.crifresh.common.arch.MayUse;
