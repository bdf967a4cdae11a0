/**
 * A condition never outlives its proof: one agent, elected with a Lease, marks every Node's
 * ContainerdConfigFresh condition whose attestation expired {@code Unknown}/{@code AttestationExpired}, as
 * Kubernetes' node lifecycle controller does for Ready. {@link dev.crifresh.agent.expire.ExpiryRule} and
 * {@link dev.crifresh.agent.expire.LeaseDecision} decide; {@link dev.crifresh.agent.expire.ExpiryController}
 * does the API calls on a worker thread.
 */
@MayUse({"agent.kube", "agent.publish"})
package dev.crifresh.agent.expire;

import dev.crifresh.common.arch.MayUse;
