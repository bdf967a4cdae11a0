package dev.crifresh.coordinator.rollout.observe;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.silence.SilenceOutcome;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The one observer of a run's {@link RunEvent}s: writes the progress lines ({@link ProgressListener}) and records the
 * Kubernetes Events ({@link RolloutEvents}, fenced there). Every text of a run's progress output is written here.
 * Called on the run's context.
 */
public final class RunObserver implements Consumer<RunEvent> {
    private final ProgressListener progress;
    private final RolloutEvents events;
    private Consumer<RunEvent> also = e -> { };

    public RunObserver(ProgressListener progress, RolloutEvents events) {
        this.progress = progress;
        this.events = events;
    }

    /** Every event also goes to {@code also}, after its line and Event (a test's typed view of the run); set before the run. */
    public void also(Consumer<RunEvent> also) {
        this.also = also;
    }

    @Override
    public void accept(RunEvent e) {
        say(e);
        also.accept(e);
    }

    @SuppressWarnings("checkstyle:methodlength") // one branch per RunEvent type in one place, ending in the loud failure
    private void say(RunEvent e) {
        if (e instanceof RunEvent.NodeProgress p) {
            if (p.level() == null) {
                progress.line(p.prefix() + " " + p.text());
            } else {
                progress.log(p.level(), p.prefix() + " " + p.text());
            }
        } else if (e instanceof RunEvent.NodeEvent n) {
            events.emit(n.node(), n.reason(), n.message());
        } else if (e instanceof RunEvent.WatchRetry w) {
            progress.line("cannot watch nodes yet (" + w.why() + "); trying again");
        } else if (e instanceof RunEvent.Classified c) {
            classified(c);
        } else if (e instanceof RunEvent.ConfigWaitStarted w) {
            progress.line("waiting up to " + DurationText.format(w.timeout()) + " for " + w.names().size()
                    + " config-pending node(s) to hold the desired credential for " + w.registry() + ": " + String.join(", ", w.names()));
        } else if (e instanceof RunEvent.ConfigSettled s) {
            Classification c = s.node();
            progress.line(c.name() + " now holds the desired credential; containerd is " + c.verdict().wire() + " (" + c.reason() + ")");
        } else if (e instanceof RunEvent.NodeDecided d) {
            progress.line(d.node() + ": " + d.action().wire() + " (" + d.action().why() + ")");
            events.emit(d.node(), EventReason.ACTION, d.action().wire() + ": " + d.action().why());
        } else if (e instanceof RunEvent.ApiOutageAllowed a) {
            progress.line(a.node() + ": " + a.why());
        } else if (e instanceof RunEvent.LeftoverReleased l) {
            progress.line(l.node() + ": dropping an earlier run's crifresh annotations" + (l.uncordon() ? " and uncordoning it" : ""));
        } else if (e instanceof RunEvent.Placed p) {
            progress.line("evicted pods: " + p.placement().describe());
            if (p.placement().seed() != null) {
                events.emit(p.placement().seed(), EventReason.SEED, "no fresh node can take evicted pods: rolled first and alone ("
                        + p.placement().seedPods() + " pods to evict)");
            }
        } else if (e instanceof RunEvent.NotRolled n) {
            progress.log(ProgressListener.Level.ERROR, n.node() + ": " + n.why());
            events.emit(n.node(), EventReason.NOT_ROLLED, n.why());
        } else if (e instanceof RunEvent.RollStarted r) {
            progress.line(r.order().isEmpty() ? "nothing to reboot" : "rolling " + r.order().size() + " node(s), max-unavailable "
                    + r.budget() + " of " + r.selected() + ": " + String.join(", ", r.order()));
        } else if (e instanceof RunEvent.Blocked b) {
            progress.line(b.why());
        } else if (e instanceof RunEvent.FreshWaitStarted w) {
            progress.line("action " + w.action() + ": waiting up to " + DurationText.format(w.timeout()) + " for " + w.names().size()
                    + " node(s) to attest fresh: " + String.join(", ", w.names()));
        } else if (e instanceof RunEvent.TurnedFresh t) {
            progress.line(t.node().name() + " is fresh (" + t.node().reason() + ")");
        } else if (e instanceof RunEvent.Joined j) {
            progress.line(j.node() + " joined the cluster during the run: waiting up to " + DurationText.format(j.timeout())
                    + " for its agent's attestation");
            events.emit(j.node(), EventReason.JOINED, "joined while the rollout was under way; waiting for its attestation");
        } else if (e instanceof RunEvent.JoinedDeleted d) {
            progress.line(d.node() + " joined and was deleted again during the run");
        } else if (e instanceof RunEvent.JoinedDecided d) {
            joinedDecided(d);
        } else if (e instanceof RunEvent.InventoryDone i) {
            progress.line("final inventory: " + i.selected() + " selected node(s), every one fresh or reported");
        } else if (e instanceof RunEvent.Silence s) {
            silence(s.outcome());
        } else if (e instanceof RunEvent.Warning w) {
            progress.log(ProgressListener.Level.WARN, w.text());
        } else if (e instanceof RunEvent.Stopping s) {
            if (s.reason() != StopReason.LOCK_NOT_ACQUIRED) { // the lock's own line says why
                progress.log(s.reason() == StopReason.INTERRUPTED ? ProgressListener.Level.WARN : ProgressListener.Level.ERROR,
                        "stopping: " + s.why() + (s.rolling() ? "; no new reboots" : ""));
            }
        } else if (e instanceof RunEvent.LockAcquired || e instanceof RunEvent.LockLost || e instanceof RunEvent.RebootOrdered) {
            // typed points for the run's listeners only: the Lease and the node's roll write their own lines
        } else {
            throw new IllegalStateException("RunObserver does not handle " + e.getClass().getName());
        }
    }

    private void classified(RunEvent.Classified e) {
        Map<NodeVerdict, Integer> counts = new TreeMap<>();
        e.nodes().forEach(c -> counts.merge(c.verdict(), 1, Integer::sum));
        progress.line("classified " + e.nodes().size() + " nodes: "
                + counts.getOrDefault(NodeVerdict.FRESH, 0) + " fresh, "
                + counts.getOrDefault(NodeVerdict.STALE, 0) + " stale, "
                + counts.getOrDefault(NodeVerdict.CONFIG_PENDING, 0) + " config-pending, "
                + counts.getOrDefault(NodeVerdict.UNKNOWN, 0) + " unknown");
        for (Classification c : e.nodes()) {
            if (c.markerContradicts()) {
                progress.log(ProgressListener.Level.WARN, "warning: " + c.name() + ": the machine-config marker says current, but containerd is "
                        + c.verdict().wire() + " (" + c.reason() + ")");
            }
        }
    }

    private void joinedDecided(RunEvent.JoinedDecided d) {
        Classification c = d.classification();
        switch (d.route()) {
            case SKIPPED -> progress.line(d.node() + " (joined) is fresh (" + c.reason() + "): skipped");
            case AFTER_THE_WAIT -> progress.line(d.node() + " (joined) is " + c.verdict().wire() + " (" + c.reason() + "): rebooted after the wait");
            case ROLLED -> progress.line(d.node() + " (joined) is " + c.verdict().wire() + " (" + c.reason() + "): it is rolled too");
            default -> { }
        }
    }

    private void silence(SilenceOutcome outcome) {
        if (outcome.isWarning()) {
            progress.log(ProgressListener.Level.WARN, "warning: " + outcome.message());
            events.emit(outcome.node(), EventReason.SILENCE_FAILED, outcome.message());
        } else if (outcome.kind() != SilenceOutcome.Kind.NOTHING) {
            progress.line(outcome.node() + ": " + outcome.message());
        }
    }
}
