/**
 * The evidence rules: whether containerd loaded the current config, from what the agent read.
 */
@MayUse({"common.text"})
package dev.crifresh.common.evidence;

import dev.crifresh.common.arch.MayUse;
