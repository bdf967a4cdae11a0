/**
 * The Node condition contract between agent and coordinator.
 */
@MayUse({})
package dev.crifresh.common.kube;

import dev.crifresh.common.arch.MayUse;
