package dev.crifresh.coordinator.rollout.observe;

import dev.crifresh.coordinator.silence.SilenceOutcome;
import dev.crifresh.coordinator.silence.Silences;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The run's Alertmanager silences: which nodes it still owes an expiry (those it silenced, and those it
 * resumes from an earlier run, which may have left one), and the warnings for the report. Every future
 * succeeds: a silence that cannot be created or expired is a warning, never a stop (alerts are noise, not safety).
 */
public final class RunSilences {
    private final Silences silences;
    private final Consumer<SilenceOutcome> note;
    private final Set<String> owed = new TreeSet<>();
    private final List<String> warnings = new ArrayList<>();
    /** Creates and expiries under way: the end of the run waits for them before it expires the rest and closes. */
    private final List<Future<Void>> pending = new ArrayList<>();

    /** @param note told every outcome (a log line; for a warning also an Event on the node) */
    public RunSilences(Silences silences, Consumer<SilenceOutcome> note) {
        this.silences = silences;
        this.note = note;
    }

    /** Silences the node's alerts; the node is owed an expiry from now on, also when the create failed part-way. */
    public Future<Void> create(String node) {
        owed.add(node);
        return track(silences.create(node).map(this::noted));
    }

    /** A node resumed from an earlier run: its silences (if that run left any) are expired when its step ends. */
    public void owe(String node) {
        owed.add(node);
    }

    /** Expires the node's crifresh silences if this run owes that; else nothing. */
    public Future<Void> expire(String node) {
        if (!owed.remove(node)) {
            return Future.succeededFuture();
        }
        return track(silences.expire(node).map(this::noted));
    }

    private Future<Void> track(Future<Void> call) {
        pending.add(call);
        return call.onComplete(ar -> pending.remove(call));
    }

    /** The end of the run: expires every silence still owed (nodes abandoned, the run stopped), then closes the client. */
    public Future<Void> expireAll() {
        // a create still under way would land after an expiry sent now: wait for it first
        return Future.join(List.copyOf(pending)).<Void>mapEmpty().eventually(() -> {
            List<Future<Void>> expiries = new ArrayList<>();
            for (String node : List.copyOf(owed)) {
                expiries.add(expire(node));
            }
            return Future.join(expiries);
        }).eventually(() -> {
            silences.close();
            return Future.succeededFuture();
        });
    }

    /** Every silence warning so far, in order. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    private Void noted(SilenceOutcome outcome) {
        if (outcome.isWarning()) {
            warnings.add(outcome.message());
        }
        note.accept(outcome);
        return null;
    }
}
