package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import java.time.Duration;
import java.util.List;

/** What the run does: carried out by {@link Rollout}, each type by its own {@link Handler} method ({@link #dispatch}). */
sealed interface RunEffect {

    /** Who carries the effects out: one method per type. */
    interface Handler {
        void emit(Emit e);

        void record(NodeRecord r);

        void observe(Observe o);

        void observeLater(ObserveLater l);

        void startConfigWait(StartConfigWait w);

        void classify(Classify c);

        void startGates(StartGates g);

        void preflight(Preflight p);

        void release(Release r);

        void place(Place p);

        void startRolling(StartRolling r);

        void waitForFresh(WaitForFresh w);

        void cancelBlocked(CancelBlocked c);

        void abandonInFlight(AbandonInFlight a);

        void finalInventory(FinalInventory f);

        void reportOnly(ReportOnly r);

        void finish(Finish f);
    }

    /** Routes {@code effect} to its method of {@code h}; a type without one fails loudly. */
    static void dispatch(RunEffect effect, Handler h) {
        if (effect instanceof Emit e) {
            h.emit(e);
        } else if (effect instanceof NodeRecord r) {
            h.record(r);
        } else if (effect instanceof Observe o) {
            h.observe(o);
        } else if (effect instanceof ObserveLater l) {
            h.observeLater(l);
        } else if (effect instanceof StartConfigWait w) {
            h.startConfigWait(w);
        } else if (effect instanceof Classify c) {
            h.classify(c);
        } else if (effect instanceof StartGates g) {
            h.startGates(g);
        } else if (effect instanceof Preflight p) {
            h.preflight(p);
        } else if (effect instanceof Release r) {
            h.release(r);
        } else if (effect instanceof Place p) {
            h.place(p);
        } else if (effect instanceof StartRolling r) {
            h.startRolling(r);
        } else if (effect instanceof WaitForFresh w) {
            h.waitForFresh(w);
        } else if (effect instanceof CancelBlocked c) {
            h.cancelBlocked(c);
        } else if (effect instanceof AbandonInFlight a) {
            h.abandonInFlight(a);
        } else if (effect instanceof FinalInventory f) {
            h.finalInventory(f);
        } else if (effect instanceof ReportOnly r) {
            h.reportOnly(r);
        } else if (effect instanceof Finish f) {
            h.finish(f);
        } else {
            throw new IllegalStateException("unhandled " + effect);
        }
    }

    record Emit(RunEvent event) implements RunEffect {
    }

    /** What the report says of a node: a decision and/or an outcome (null: unchanged), with its detail. */
    record NodeRecord(String node, Decision decision, Outcome outcome, String detail) implements RunEffect {
    }

    record Observe() implements RunEffect {
    }

    record ObserveLater(Duration delay) implements RunEffect {
    }

    record StartConfigWait() implements RunEffect {
    }

    record Classify() implements RunEffect {
    }

    record StartGates(RolloutPlan plan) implements RunEffect {
    }

    /** @param reread the reboots were decided earlier (auto's wait): their latest state, the deleted ones dropped */
    record Preflight(List<NodeFacts> reboots, List<NodeFacts> leftovers, boolean reread) implements RunEffect {
    }

    record Release(List<NodeFacts> leftovers, RunStep.After then, List<NodeFacts> nodes, RunStep.Waiting next) implements RunEffect {
    }

    record Place(List<NodeFacts> reboots) implements RunEffect {
    }

    record StartRolling(List<NodeFacts> ordered, int budget) implements RunEffect {
    }

    /** Action none or auto: wait for these nodes to turn fresh by themselves. */
    record WaitForFresh(List<NodeFacts> nodes) implements RunEffect {
    }

    record CancelBlocked() implements RunEffect {
    }

    record AbandonInFlight(String why) implements RunEffect {
    }

    record FinalInventory() implements RunEffect {
    }

    record ReportOnly() implements RunEffect {
    }

    record Finish() implements RunEffect {
    }
}
