/**
 * The simulated cluster API: the mock API server, its pod scheduling and starting, evictions, forged attestations.
 */
@MayUse({"sim.base", "sim.external", "sim.node", "sim.scenario"})
package dev.crifresh.sim.kube;

import dev.crifresh.common.arch.MayUse;
