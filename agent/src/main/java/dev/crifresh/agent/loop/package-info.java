/**
 * The event-driven loop: watches, probes, debounces and evaluates, one evaluation at a time.
 */
@MayUse({"agent.cri", "agent.host", "agent.introspect"})
package dev.crifresh.agent.loop;

import dev.crifresh.common.arch.MayUse;
