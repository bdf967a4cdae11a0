package dev.crifresh.coordinator.silence;

import io.vertx.core.Future;

/**
 * Alertmanager silences for a node while crifresh takes it down: its node alerts ({@code KubeNodeNotReady},
 * …) are expected noise then. Alerts are noise, not safety: every future here <b>succeeds</b>; a silence
 * that cannot be created or expired comes back as an outcome of kind {@link SilenceOutcome.Kind#WARNING}
 * naming the URL, for the report and an Event, and never stops a rollout.
 *
 * <p>Where a rollout calls it: {@link #create} for a node about to be taken down, before its cordon;
 * {@link #expire} once that node is back, attested fresh and uncordoned, and on every other way its step ends
 * (failed, interrupted, Lease lost, the run stopping) — and for a node a rerun resumes from a previous run's
 * ownership annotations, whose silences that run may have left. {@link #close} at the end of the run.
 * {@code --action none} takes no node down and needs no silence.
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
