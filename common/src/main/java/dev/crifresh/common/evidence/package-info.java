/**
 * The evidence rules: whether containerd loaded the current config, from what the agent read, and whether the
 * credential a pull sends is the one the files spell (rule 7, from {@code common.registry}'s pull path).
 */
@MayUse({"common.registry", "common.text"})
package dev.crifresh.common.evidence;

import dev.crifresh.common.arch.MayUse;
