package dev.crifresh.mockapi.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Waits for a condition with a deadline instead of sleeping a fixed time (a test helper, shared through the mockapi test-jar). */
public final class Poll {
    private Poll() {
    }

    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            sleep();
        }
    }

    /** Polls {@code probe} until its value satisfies {@code ok}; returns that value. */
    public static <T> T until(Duration timeout, String what, Supplier<T> probe, Predicate<T> ok) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = probe.get();
        while (!ok.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; last: " + last);
            }
            sleep();
            last = probe.get();
        }
        return last;
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }
}
