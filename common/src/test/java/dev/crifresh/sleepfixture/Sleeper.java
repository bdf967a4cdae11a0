package dev.crifresh.sleepfixture;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Sleeps each way {@code PackageRules.noSleeps} forbids, and waits once in a way it allows. Never called. */
public final class Sleeper {
    private Sleeper() {
    }

    static void pauseMillis(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    static void pauseUnit(TimeUnit unit) throws InterruptedException {
        unit.sleep(1);
    }

    static void park() {
        LockSupport.parkNanos(1_000_000L);
    }

    static Object timed(CompletableFuture<Object> f) throws Exception {
        return f.get(1, TimeUnit.SECONDS);
    }
}
