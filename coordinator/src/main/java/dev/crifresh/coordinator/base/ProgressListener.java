package dev.crifresh.coordinator.base;

/**
 * Receives one human progress line at a time, e.g. {@code [2/5] worker-3 draining: 4 pods left}, with a
 * level. Called on the coordinator's event-loop thread: implementations must return quickly.
 */
@FunctionalInterface
public interface ProgressListener {
    ProgressListener NONE = text -> { };

    /** How much a line matters: {@code INFO} progress, {@code WARN} something to look at, {@code ERROR} a failure. */
    enum Level { INFO, WARN, ERROR }

    /** An {@code INFO} line. */
    void line(String text);

    /** A line with its level; listeners that ignore levels get it through {@link #line}. */
    default void log(Level level, String text) {
        line(text);
    }
}
