package dev.crifresh.agent.kube;

import java.time.Instant;

/**
 * The part of a {@code coordination.k8s.io/v1} Lease the expiry leader election reads and writes.
 *
 * @param holder          {@code spec.holderIdentity}, or null when nobody holds it
 * @param durationSeconds {@code spec.leaseDurationSeconds}, 0 when absent
 * @param acquireTime     {@code spec.acquireTime}, or null
 * @param renewTime       {@code spec.renewTime}, or null
 * @param transitions     {@code spec.leaseTransitions}, 0 when absent
 * @param resourceVersion {@code metadata.resourceVersion}: an update is guarded by it; null for a new Lease
 */
public record LeaseRecord(String holder, int durationSeconds, Instant acquireTime, Instant renewTime, int transitions,
                          String resourceVersion) {
}
