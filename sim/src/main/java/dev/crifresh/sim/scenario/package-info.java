/**
 * Scenarios as data: the TOML file read into typed specs. The bottom of the module.
 */
@MayUse({})
package dev.crifresh.sim.scenario;

import dev.crifresh.common.arch.MayUse;
