package dev.crifresh.reality;

import java.time.Duration;
import java.util.function.Supplier;

/** Waiting on a condition with a generous deadline, polled every 20 ms: never a fixed sleep. */
public final class Waits {
    private Waits() {
    }

    /** Polls {@code probe} until it returns non-null, and returns that; fails naming {@code what} after {@code timeout}. */
    public static <T> T until(Duration timeout, String what, Supplier<T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                T value = probe.get();
                if (value != null) {
                    return value;
                }
                last = null;
            } catch (IllegalStateException e) {
                throw e;
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + (last == null ? "" : ": " + last.getMessage()), last);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
