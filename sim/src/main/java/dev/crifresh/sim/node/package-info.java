/**
 * One simulated Talos node: its host root, /proc, boots, kubelet, Node object and agent.
 */
@MayUse({"sim.base", "sim.scenario"})
package dev.crifresh.sim.node;

import dev.crifresh.common.arch.MayUse;
