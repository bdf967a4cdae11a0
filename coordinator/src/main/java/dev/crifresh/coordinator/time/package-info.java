/**
 * Time and timers for the coordinator ({@link dev.crifresh.coordinator.time.Ticker}): the only way its code reads the
 * monotonic clock or schedules work, so tests drive time by hand instead of sleeping.
 * Uses Vert.x only; every coordinator package may use it.
 */
package dev.crifresh.coordinator.time;
