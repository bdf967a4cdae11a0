/**
 * Time and timers for the coordinator ({@link dev.crifresh.coordinator.time.Ticker}): the only way its code reads the
 * monotonic clock or schedules work, so tests drive time by hand instead of sleeping.
 * Uses Vert.x only; the packages that read time or schedule work list it in their {@code @MayUse}.
 */
@MayUse({})
package dev.crifresh.coordinator.time;

import dev.crifresh.common.arch.MayUse;
