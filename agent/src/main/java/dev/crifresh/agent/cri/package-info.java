/**
 * The opt-in CRI runtime-status proof over containerd's CRI socket.
 */
@MayUse({"agent.cri.v1", "agent.host"})
package dev.crifresh.agent.cri;

import dev.crifresh.common.arch.MayUse;
