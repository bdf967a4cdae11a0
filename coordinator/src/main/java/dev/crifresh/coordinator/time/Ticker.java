package dev.crifresh.coordinator.time;

import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * Time and timers for the rollout: the only way its code reads the monotonic clock or schedules work, so a test
 * drives time by hand ({@code ManualTicker} in the tests) instead of sleeping. Used on the run's context only.
 */
public interface Ticker {
    /** The monotonic clock, as {@link System#nanoTime()}: only differences mean anything. */
    long nanoTime();

    /** Runs {@code action} once after {@code delay} (at least 1 ms); returns an id for {@link #cancelTimer}. */
    long setTimer(Duration delay, Runnable action);

    /** Cancels a timer that has not fired yet; an unknown or fired id is ignored. */
    void cancelTimer(long id);

    /** How long since {@code startNanos} (a {@link #nanoTime()} reading), never negative. */
    default Duration since(long startNanos) {
        return Duration.ofNanos(Math.max(0, nanoTime() - startNanos));
    }

    /** Real time: the JVM's monotonic clock and Vert.x timers (which run on the calling context). */
    static Ticker of(Vertx vertx) {
        return new VertxTicker(vertx);
    }

    /** The production {@link Ticker}. */
    record VertxTicker(Vertx vertx) implements Ticker {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long setTimer(Duration delay, Runnable action) {
            return vertx.setTimer(Math.max(1, delay.toMillis()), id -> action.run());
        }

        @Override
        public void cancelTimer(long id) {
            vertx.cancelTimer(id);
        }
    }
}
