package dev.crifresh.coordinator.silence;

import io.vertx.core.Future;

/**
 * Alertmanager silences for a node while crifresh takes it down: its node alerts ({@code KubeNodeNotReady},
 * …) are expected noise then. Alerts are noise, not safety: every future here <b>succeeds</b>; a silence
 * that cannot be created or expired comes back as an outcome of kind {@link SilenceOutcome.Kind#WARNING}
 * naming the URL, for the report and an Event, and never stops a rollout.
 */
public interface Silences extends AutoCloseable {

    /** Silences the node's alerts from now until now + the configured lifetime. */
    Future<SilenceOutcome> create(String node);

    /**
     * Expires every active or pending silence crifresh created for this node — this run's and a previous
     * run's leftovers alike (found by {@code createdBy} and the node's matchers) — once the node is back and
     * proven fresh, or on any exit path.
     */
    Future<SilenceOutcome> expire(String node);

    /** Releases the HTTP client; call once the rollout has expired what it created. */
    @Override
    default void close() {
    }

    /** No Alertmanager configured: nothing is created or expired. */
    static Silences none() {
        return new Silences() {
            @Override
            public Future<SilenceOutcome> create(String node) {
                return Future.succeededFuture(SilenceOutcome.nothing(node, "no --silence-alertmanager"));
            }

            @Override
            public Future<SilenceOutcome> expire(String node) {
                return Future.succeededFuture(SilenceOutcome.nothing(node, "no --silence-alertmanager"));
            }
        };
    }
}
