/**
 * A node's classification from its attestation and facts (fresh, stale, config pending, unknown): pure, the heart
 * of every decision.
 */
@NoIo
@MayUse({"coordinator.base"})
package dev.crifresh.coordinator.classify;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
