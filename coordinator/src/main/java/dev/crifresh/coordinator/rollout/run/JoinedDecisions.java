package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.rollout.view.NodeView;
import java.util.List;
import java.util.function.Consumer;

/**
 * Decides a settled joined node ({@link JoinedDecision#decide}) and carries the decision out, each type by its own
 * method: the report, the events, the run's inputs, the taint before its roll, the fresh wait. Called on the run's
 * context.
 */
final class JoinedDecisions implements JoinedDecision.Handler {
    private final NodeView view;
    private final RunResults results;
    private final RollingPhase rolls;
    private final StaleNodeTaints taints;
    private final RunStep.Config settings;
    private final String registry;
    private final Consumer<RunEvent> observer;
    private final RunParts run;
    private final PendingWait freshWait;
    /** Joined stale nodes being tainted before their roll is queued. */
    private int tainting;

    JoinedDecisions(RunParts run, RollingPhase rolls, StaleNodeTaints taints, RunStep.Config settings, PendingWait freshWait) {
        this.view = run.view();
        this.results = run.results();
        this.rolls = rolls;
        this.taints = taints;
        this.settings = settings;
        this.registry = settings.registry();
        this.observer = run.observer();
        this.run = run;
        this.freshWait = freshWait;
    }

    int tainting() {
        return tainting;
    }

    /** Decides a joined node like any other, unless it is gone. */
    void decide(String name) {
        NodeFacts f = view.facts(name);
        if (f == null) {
            return;
        }
        Classification c = run.informers().classifyNow(name);
        results.classified(c);
        JoinedDecision.dispatch(JoinedDecision.decide(c, f, settings.action(), stage(), run.loop().stopping(), settings.attestTimeout(),
                registry), this);
    }

    @Override
    public void skip(JoinedDecision.Skip s) {
        results.record(s.record());
        observer.accept(s.event());
        afterDecided();
    }

    @Override
    public void timedOut(JoinedDecision.TimedOut t) {
        results.record(t.record());
        results.failAtEnd(t.halt().reason(), t.halt().why()); // the other nodes are still rolled
        afterDecided();
    }

    @Override
    public void notAttempted(JoinedDecision.NotAttempted n) {
        decided(n.decided());
        results.ended(n.decided().node(), Outcome.NOT_ATTEMPTED, n.detail());
        afterDecided();
    }

    @Override
    public void afterTheWait(JoinedDecision.AfterTheWait a) {
        decided(a.decided());
        observer.accept(a.event());
        run.loop().feed(a.input());
        afterDecided();
    }

    @Override
    public void roll(JoinedDecision.Roll r) {
        decided(r.decided());
        observer.accept(r.event());
        String name = r.decided().node();
        tainting++;
        long epoch = run.loop().machine().epoch();
        taints.taint(List.of(name)).onComplete(ar -> {
            tainting--;
            if (run.loop().current(epoch) && view.has(name)) {
                rolls.addJoined(view.facts(name));
            }
            rolls.pump();
        });
    }

    @Override
    public void waitRestart(JoinedDecision.WaitRestart w) {
        decided(w.decided());
        String name = w.decided().node();
        results.rebootOrdered(name);
        boolean restart = freshWait.isEmpty();
        freshWait.add(name);
        if (restart) {
            freshWait.start(settings.attestTimeout());
        }
        freshWait.check(w.latest());
    }

    private void decided(JoinedDecision.Decided d) {
        results.decided(d.node(), d.decision());
        if (d.announced()) {
            observer.accept(new RunEvent.NodeDecided(d.node(), d.action()));
        }
    }

    /** The state may have changed while the decision was carried out: what follows is decided on the state now. */
    private void afterDecided() {
        switch (stage().afterDecided(freshWait.isEmpty())) {
            case PUMP_ROLLS -> rolls.pump();
            case END_FRESH_WAIT -> run.loop().feed(new RunInput.FreshWaitEnded());
            case NOTHING -> {
            }
        }
    }

    private NodeEventStage stage() {
        return NodeEventStage.of(run.loop().machine().state());
    }
}
