package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.common.retry.Retry;
import dev.crifresh.coordinator.base.DrainRules;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Where a node's drain is ({@link DrainStep}). Every state carries its epoch: it moves on with each start and each
 * end, and an answer asked for in another epoch is dropped by {@link DrainRunner}.
 */
sealed interface DrainState {
    long epoch();

    /** Not draining: never started, or stopped. */
    record Idle(long epoch) implements DrainState {
    }

    /** Started, and the pod watch is not running (not answered yet, or refused): pod lists drive the drain. */
    record Listing(long epoch, Book book) implements DrainState {
    }

    /** The pod watch runs and drives the drain; a slow re-list is only its safety net. */
    record Watching(long epoch, Book book) implements DrainState {
    }

    /** Every pod to evict is gone. */
    record Drained(long epoch) implements DrainState {
    }

    /** The deadline passed first; {@code why}: what the drain still waited for. */
    record TimedOut(long epoch, String why) implements DrainState {
    }

    /**
     * What a running drain knows of the node's pods, by uid.
     *
     * @param timeout    {@code --drain-timeout}: the deadline, and the scale of the back-off and re-list periods
     * @param evicted    pods whose eviction the API server accepted (or that were gone when evicted)
     * @param evicting   pods with an eviction call in flight
     * @param refused    pods whose eviction was refused or failed, with why, in the order refused; tried again once
     *                   the back-off timer fires
     * @param retry      the back-off since the drain started ({@link DrainStep#retryPolicy}): eviction retries and failed
     *                   lists share it; its failures are the delays taken. Its first attempt is at 0: the drain's own
     *                   deadline timer ends the retries, so the retry never needs the time
     * @param retryArmed the back-off timer is set
     * @param lastLeft   the count of pods left in the last progress line (-1: none yet)
     * @param waitDetail what the drain waits for, in words (the reason a timeout gives)
     * @param rules      which pods are never evicted without an opt-in ({@link DrainSelection#refusals})
     */
    record Book(Duration timeout, DrainRules rules, Set<String> evicted, Set<String> evicting, Map<String, String> refused, Retry retry,
                boolean retryArmed, int lastLeft, String waitDetail) {
        public Book {
            evicted = Set.copyOf(evicted);
            evicting = Set.copyOf(evicting);
            refused = Collections.unmodifiableMap(new LinkedHashMap<>(refused));
        }

        static Book fresh(Duration timeout, DrainRules rules) {
            return new Book(timeout, rules, Set.of(), Set.of(), Map.of(), Retry.first(DrainStep.retryPolicy(timeout), 0), false, -1,
                    "its pods were not listed yet");
        }

        /** Back-off delays taken since the drain started. */
        int retries() {
            return retry.failures();
        }

        Book evictions(Set<String> evicted, Set<String> evicting, Map<String, String> refused) {
            return new Book(timeout, rules, evicted, evicting, refused, retry, retryArmed, lastLeft, waitDetail);
        }

        /** One more back-off delay taken; {@code armed}: it is the back-off timer's. */
        Book retried(boolean armed) {
            return new Book(timeout, rules, evicted, evicting, refused, retry.failed(), armed || retryArmed, lastLeft, waitDetail);
        }

        /** The back-off timer fired: the refused pods are tried again. */
        Book retryFired() {
            return new Book(timeout, rules, evicted, evicting, Map.of(), retry, false, lastLeft, waitDetail);
        }

        Book said(int left, String detail) {
            return new Book(timeout, rules, evicted, evicting, refused, retry, retryArmed, left, detail);
        }
    }
}
