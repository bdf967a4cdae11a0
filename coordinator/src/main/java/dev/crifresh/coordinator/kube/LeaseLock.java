package dev.crifresh.coordinator.kube;

import io.vertx.core.Future;
import java.util.function.Consumer;

/** The rollout lock: a {@code coordination.k8s.io/v1} Lease. */
public interface LeaseLock {

    /** Takes the Lease when it is free, expired or already ours. */
    Future<Attempt> tryAcquire();

    /** Extends our hold; false when the Lease is no longer ours, a failed future when this attempt failed. */
    Future<Boolean> renew();

    /** Gives the Lease up when it is still ours. */
    Future<Void> release();

    /** Who holds the Lease now, read from the API server: its holder, or null when it names none or does not exist. */
    Future<String> holder();

    /**
     * Watches the Lease: {@code holder} gets the holder it names (null: none, or deleted) at the start and on every
     * change, on the caller's context. The future completes once the watch runs.
     */
    Future<Watch> watch(Consumer<String> holder);

    interface Watch {
        void close();
    }

    /** @param holder who holds it when not acquired */
    record Attempt(boolean acquired, String holder) {
    }
}
