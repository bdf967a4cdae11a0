package dev.crifresh.coordinator.kube;

/**
 * Checked on the worker thread right before a write is sent to the API server, inside the blocking call: a
 * check made on the event loop when the call was queued can be stale by the time a worker runs it (the run's
 * Lease hold may end in between). Throws to refuse the write; then nothing is sent.
 */
@FunctionalInterface
public interface WriteGate {
    /** Lets every write through. */
    WriteGate OPEN = () -> { };

    /** Returns when the write may be sent now; throws (the caller's own exception) when it may not. */
    void check();
}
