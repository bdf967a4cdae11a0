/**
 * The run: its pure step function ({@link dev.crifresh.coordinator.rollout.run.RunStep}) and the loop that carries out its
 * effects, the preflight, the nodes' rolls under the budget, the waits and the report, wired together by the entry point
 * {@link dev.crifresh.coordinator.rollout.run.Rollout}. The top of the rollout: may use every other rollout package and
 * every coordinator package below it; only {@code Rollout} is public.
 */
package dev.crifresh.coordinator.rollout.run;
