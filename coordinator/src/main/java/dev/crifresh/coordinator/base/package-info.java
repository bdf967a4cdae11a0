/**
 * The coordinator's shared vocabulary, below every room: the settings, the action and what it means per node, the
 * stale taint, the progress listener, a gate's verdict, a node's InternalIPs. It uses no other package of the
 * coordinator.
 */
@NoIo
@MayUse({})
package dev.crifresh.coordinator.base;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
