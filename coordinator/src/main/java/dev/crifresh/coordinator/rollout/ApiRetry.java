package dev.crifresh.coordinator.rollout;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Retries one Kubernetes call on a {@link ApiFailure#RETRYABLE} failure with bounded backoff (100 ms
 * doubling to 2 s, at most {@link #ATTEMPTS} attempts, about 7 s in all), and only while the run may still
 * act (it holds the Lease): a transient API error does not end a run, and no retry outlives the Lease.
 * Any other failure, or the last one, fails the returned future.
 */
final class ApiRetry {
    static final int ATTEMPTS = 8;

    private final Vertx vertx;
    private final BooleanSupplier mayAct;

    /** @param mayAct checked before every retry: false stops retrying (the Lease is no longer held) */
    ApiRetry(Vertx vertx, BooleanSupplier mayAct) {
        this.vertx = vertx;
        this.mayAct = mayAct;
    }

    <T> Future<T> call(Supplier<Future<T>> call) {
        Promise<T> promise = Promise.promise();
        attempt(call, 1, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2)), promise);
        return promise.future();
    }

    private <T> void attempt(Supplier<Future<T>> call, int attempt, Backoff backoff, Promise<T> promise) {
        call.get().onComplete(ar -> {
            if (ar.succeeded()) {
                promise.complete(ar.result());
            } else if (attempt < ATTEMPTS && ApiFailure.of(ar.cause()) == ApiFailure.RETRYABLE && mayAct.getAsBoolean()) {
                vertx.setTimer(backoff.next(), id -> {
                    if (mayAct.getAsBoolean()) {
                        attempt(call, attempt + 1, backoff, promise);
                    } else {
                        promise.fail(ar.cause());
                    }
                });
            } else {
                promise.fail(ar.cause());
            }
        });
    }
}
