/**
 * The opt-in introspection check over containerd's own socket (rule 1b).
 */
@MayUse({"agent.host", "agent.introspect.v1"})
package dev.crifresh.agent.introspect;

import dev.crifresh.common.arch.MayUse;
