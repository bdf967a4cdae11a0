/**
 * Publishing the evaluation as a signed attestation in the Node condition.
 */
@MayUse({"agent.host", "agent.http", "agent.kube", "agent.loop"})
package dev.crifresh.agent.publish;

import dev.crifresh.common.arch.MayUse;
