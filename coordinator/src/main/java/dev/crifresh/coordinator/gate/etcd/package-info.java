/**
 * The etcd gate: etcd's health from talosctl or a command, parsed.
 */
@MayUse({"coordinator.driver"})
package dev.crifresh.coordinator.gate.etcd;

import dev.crifresh.common.arch.MayUse;
