/**
 * Simulated outside services: the registry, Prometheus, talosctl.
 */
@MayUse({"sim.node", "sim.scenario"})
package dev.crifresh.sim.external;

import dev.crifresh.common.arch.MayUse;
