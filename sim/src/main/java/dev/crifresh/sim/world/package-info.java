/**
 * The simulated world that holds the nodes, the cluster API and the outside services. The top of the simulated
 * cluster.
 */
@MayUse({"sim.base", "sim.external", "sim.kube", "sim.node", "sim.scenario"})
package dev.crifresh.sim.world;

import dev.crifresh.common.arch.MayUse;
