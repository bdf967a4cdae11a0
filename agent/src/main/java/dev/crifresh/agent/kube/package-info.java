/**
 * The agent's Kubernetes client: the Node API (fabric8 or Vert.x), in-cluster config, watch and back-off.
 */
@MayUse({})
package dev.crifresh.agent.kube;

import dev.crifresh.common.arch.MayUse;
