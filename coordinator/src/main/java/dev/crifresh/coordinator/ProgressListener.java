package dev.crifresh.coordinator;

/**
 * Receives one human progress line at a time, e.g. {@code [2/5] worker-3 draining: 4 pods left}.
 * Called on the coordinator's event-loop thread: implementations must return quickly.
 */
@FunctionalInterface
public interface ProgressListener {
    ProgressListener NONE = text -> { };

    void line(String text);
}
