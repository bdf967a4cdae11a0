/**
 * The {@code crifresh-agent} command line (run, observe).
 */
@MayUse({"agent", "agent.cri", "agent.expire", "agent.host", "agent.introspect", "agent.kube", "agent.loop"})
package dev.crifresh.agent.cli;

import dev.crifresh.common.arch.MayUse;
