/**
 * The evidence rules, one ordered table ({@link dev.crifresh.common.evidence.EvidenceRules}, docs/design.md "The
 * rules"): whether containerd loaded the current config, from what the agent read, whether the credential a pull
 * sends is the one the files spell (rule 8, from {@code common.registry}'s pull path), and whether the kubelet sees
 * the runtime serve (rule 10).
 */
@NoIo
@MayUse({"common.registry", "common.text"})
package dev.crifresh.common.evidence;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
