package dev.crifresh.coordinator.report;

import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;

/**
 * One node's line in the report.
 *
 * @param verdict           the classification the run started from (what {@code plan} shows)
 * @param reason            the reason code of that classification
 * @param decision          what the run decided to do
 * @param outcome           what happened
 * @param markerSaysCurrent whether the machine-config marker claims the node is current
 * @param markerContradicts the marker says current while containerd is stale or unknown
 * @param detail            one human sentence: what happened, or why it failed
 * @param action            what {@code --action} resolved to for this node: {@code reboot} or {@code wait-restart}
 *                          (containerd restarts itself); null for a node the run skips
 */
public record NodeReport(
        String name,
        Role role,
        NodeVerdict verdict,
        String reason,
        Decision decision,
        Outcome outcome,
        boolean markerSaysCurrent,
        boolean markerContradicts,
        String detail,
        String action) {
}
