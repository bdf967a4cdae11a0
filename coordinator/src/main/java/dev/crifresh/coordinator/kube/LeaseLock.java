package dev.crifresh.coordinator.kube;

import io.vertx.core.Future;

/** The rollout lock: a {@code coordination.k8s.io/v1} Lease. */
public interface LeaseLock {

    /** Takes the Lease when it is free, expired or already ours. */
    Future<Attempt> tryAcquire();

    /** Extends our hold; false when the Lease is no longer ours, a failed future when this attempt failed. */
    Future<Boolean> renew();

    /** Gives the Lease up when it is still ours. */
    Future<Void> release();

    /** @param holder who holds it when not acquired */
    record Attempt(boolean acquired, String holder) {
    }
}
