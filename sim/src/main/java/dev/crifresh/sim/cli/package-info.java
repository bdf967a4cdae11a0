/**
 * The {@code crifresh-sim} command line (serve, scenario, demo, rotate, reboot).
 */
@MayUse({"sim.base", "sim.run", "sim.scenario", "sim.serve", "sim.world"})
package dev.crifresh.sim.cli;

import dev.crifresh.common.arch.MayUse;
