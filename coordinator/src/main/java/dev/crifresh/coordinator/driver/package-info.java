/**
 * How a reboot is requested: talosctl or a command template, run as a child process.
 */
@MayUse({"coordinator.base"})
package dev.crifresh.coordinator.driver;

import dev.crifresh.common.arch.MayUse;
