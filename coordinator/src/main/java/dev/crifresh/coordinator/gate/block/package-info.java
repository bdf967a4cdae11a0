/**
 * The blockers gate: pods and Prometheus alerts that hold a node's reboot back.
 */
@MayUse({})
package dev.crifresh.coordinator.gate.block;

import dev.crifresh.common.arch.MayUse;
