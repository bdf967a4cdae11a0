package dev.crifresh.sim.scenario;

/**
 * A taint the node carries when the run starts (a scenario's {@code taints: [{key, effect}]}), e.g. the cluster
 * autoscaler's {@code ToBeDeletedByClusterAutoscaler}.
 *
 * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}
 */
public record TaintSpec(String key, String effect) {
}
