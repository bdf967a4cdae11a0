package dev.crifresh.common.evidence;

/** One containerd process lifetime: pids are reused, (boot id, pid, start ticks) is not. */
public record ContainerdIdentity(String bootId, long pid, long startTicks) {
}
