/**
 * The agent, embeddable: {@link dev.crifresh.agent.AgentRuntime} wires the loop, the publisher and the HTTP server
 * from {@link dev.crifresh.agent.AgentSettings}. The top of the module.
 */
@MayUse({"agent.cri", "agent.expire", "agent.host", "agent.http", "agent.introspect", "agent.kube", "agent.loop", "agent.publish"})
package dev.crifresh.agent;

import dev.crifresh.common.arch.MayUse;
