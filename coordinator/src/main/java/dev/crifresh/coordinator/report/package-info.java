/**
 * The run report (text, Markdown, JSON) and its metrics.
 */
@MayUse({"coordinator.base", "coordinator.classify", "coordinator.gate", "coordinator.placement"})
package dev.crifresh.coordinator.report;

import dev.crifresh.common.arch.MayUse;
