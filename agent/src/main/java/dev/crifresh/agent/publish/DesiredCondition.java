package dev.crifresh.agent.publish;

import java.time.Instant;

/** Our condition entry as it will be written (type is always ContainerdConfigFresh). */
public record DesiredCondition(String status, String reason, String message, Instant lastHeartbeatTime,
                               Instant lastTransitionTime) {
}
