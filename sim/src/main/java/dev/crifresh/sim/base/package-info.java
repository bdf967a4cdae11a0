/**
 * The simulator's shared vocabulary, below every room: its events and its signing keys.
 */
@MayUse({})
package dev.crifresh.sim.base;

import dev.crifresh.common.arch.MayUse;
