package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.rollout.lease.LeaseKeeper;
import dev.crifresh.coordinator.rollout.observe.RunSilences;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The end of every run, whatever its exit path, once its report is taken:
 * <ol>
 *   <li>the gates close;</li>
 *   <li>crifresh's taints come off ({@code removeTaints}: only while the Lease is held, see {@link StaleNodeTaints});</li>
 *   <li>the silences still open expire ({@link RunSilences});</li>
 *   <li>the Events already sent are answered, waiting at most {@link #EVENTS_SETTLE} (they are best effort), so nothing
 *       of the run reaches the API server after its end;</li>
 *   <li>the Lease is released (never after a loss: it may be someone else's by then).</li>
 * </ol>
 * Each step runs whether or not the one before succeeded. Called on the run's context.
 */
final class RunEnd {
    /** How long the end of a run waits for the answers to the Events it sent. */
    static final Duration EVENTS_SETTLE = Duration.ofSeconds(5);

    private RunEnd() {
    }

    static Future<Void> close(Gates gates, Supplier<Future<Void>> removeTaints, RunSilences silences, RolloutEvents events,
                              Ticker ticker, LeaseKeeper lease) {
        return gates.close().compose(v -> removeTaints.get()).eventually(silences::expireAll)
                .eventually(() -> eventsSettled(events, ticker)).eventually(lease::release);
    }

    private static Future<Void> eventsSettled(RolloutEvents events, Ticker ticker) {
        Promise<Void> settled = Promise.promise();
        long timer = ticker.setTimer(EVENTS_SETTLE, settled::tryComplete);
        events.settled().onComplete(ar -> {
            ticker.cancelTimer(timer);
            settled.tryComplete();
        });
        return settled.future();
    }
}
