/**
 * The Node condition contract between agent and coordinator.
 */
@NoIo
@MayUse({})
package dev.crifresh.common.kube;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
