/**
 * Serving a simulation over HTTP: the control routes, node metrics and files.
 */
@MayUse({"sim.base", "sim.kube", "sim.node", "sim.run", "sim.scenario", "sim.world"})
package dev.crifresh.sim.serve;

import dev.crifresh.common.arch.MayUse;
