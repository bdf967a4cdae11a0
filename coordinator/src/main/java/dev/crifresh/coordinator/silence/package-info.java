/**
 * Alertmanager silences for nodes while they are down.
 */
@MayUse({})
package dev.crifresh.coordinator.silence;

import dev.crifresh.common.arch.MayUse;
