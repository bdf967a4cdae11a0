/**
 * A simulation run: the world with real agents and a real coordinator, and its reboot driver.
 */
@MayUse({"sim.base", "sim.external", "sim.kube", "sim.node", "sim.scenario", "sim.world"})
package dev.crifresh.sim.run;

import dev.crifresh.common.arch.MayUse;
