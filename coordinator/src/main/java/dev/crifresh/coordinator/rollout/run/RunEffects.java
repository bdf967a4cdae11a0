package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.rollout.view.RunInformers;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Carries out the effects of {@link RunStep} for {@link Rollout}, each type in its own method ({@link RunEffect#dispatch}),
 * and feeds the answers back through the {@link RunLoop}, each with the epoch of the state that asked for it. The
 * run's end ({@link RunEffect.Finish}) stays with {@link Rollout}, which owns what it closes. Called on the run's context.
 */
final class RunEffects implements RunEffect.Handler {
    private final RunLoop loop;
    private final Action action;
    private final Ticker ticker;
    private final ApiRetry retry;
    private final NodeOps nodeOps;
    private final NodeView view;
    private final RunInformers informers;
    private final RunNodes nodes;
    private final RollingPhase rolls;
    private final RunResults results;
    private final Consumer<RunEvent> observer;
    private final Supplier<RunPreflight> preflight;
    private final Supplier<Gates> gates;
    private final Runnable finish;
    private long observeStart;

    /** The run's parts the effects work on, built by {@link Rollout}. */
    record Parts(RunLoop loop, ApiRetry retry, NodeOps nodeOps, NodeView view, RunInformers informers, RunNodes nodes,
                 RollingPhase rolls, RunResults results) {
    }

    RunEffects(Parts parts, Action action, Ticker ticker, Consumer<RunEvent> observer, Supplier<RunPreflight> preflight,
               Supplier<Gates> gates, Runnable finish) {
        this.loop = parts.loop();
        this.action = action;
        this.ticker = ticker;
        this.retry = parts.retry();
        this.nodeOps = parts.nodeOps();
        this.view = parts.view();
        this.informers = parts.informers();
        this.nodes = parts.nodes();
        this.rolls = parts.rolls();
        this.results = parts.results();
        this.observer = observer;
        this.preflight = preflight;
        this.gates = gates;
        this.finish = finish;
    }

    private long epoch() {
        return loop.machine().epoch();
    }

    @Override
    public void emit(RunEffect.Emit e) {
        observer.accept(e.event());
    }

    @Override
    public void record(RunEffect.NodeRecord r) {
        results.record(r);
    }

    @Override
    public void observe(RunEffect.Observe o) {
        observe(epoch());
    }

    @Override
    public void observeLater(RunEffect.ObserveLater l) {
        long epoch = epoch();
        ticker.setTimer(l.delay(), () -> loop.answer(epoch, new RunInput.ObserveDue()));
    }

    @Override
    public void startConfigWait(RunEffect.StartConfigWait w) {
        nodes.startConfigWait(informers::classifyLatest);
    }

    @Override
    public void classify(RunEffect.Classify c) {
        long epoch = epoch();
        informers.classifyLatest(results.names()).onComplete(ar -> {
            if (loop.current(epoch)) {
                loop.feed(ar.failed() ? new RunInput.PlanFailed(ErrorText.message(ar.cause())) : planned(ar.result()));
            }
        });
    }

    @Override
    public void startGates(RunEffect.StartGates g) {
        long epoch = epoch();
        preflight.get().gates(gates.get(), g.plan()).onSuccess(in -> loop.answer(epoch, in));
    }

    @Override
    public void preflight(RunEffect.Preflight p) {
        long epoch = epoch();
        preflight.get().check(p).onSuccess(in -> loop.answer(epoch, in));
    }

    @Override
    public void release(RunEffect.Release r) {
        long epoch = epoch();
        preflight.get().release(r).onSuccess(in -> loop.answer(epoch, in));
    }

    @Override
    public void place(RunEffect.Place p) {
        long epoch = epoch();
        preflight.get().place(p.reboots(), nodes.fresh(), () -> loop.machine().done()).onSuccess(in -> loop.answer(epoch, in));
    }

    @Override
    public void startRolling(RunEffect.StartRolling r) {
        rolls.start(r.ordered(), r.budget(), results.placement() == null ? null : results.placement().seed(), results.size());
        nodes.decidePending();
        rolls.pump();
    }

    @Override
    public void waitForFresh(RunEffect.WaitForFresh w) {
        nodes.waitForFresh(w.nodes());
        // Nodes may have changed while they were classified: check the waited ones again, off the loop.
        informers.classifyLatest(nodes.freshWait.snapshot()).onSuccess(latest -> nodes.freshWait.checkAll(latest.values()));
    }

    @Override
    public void cancelBlocked(RunEffect.CancelBlocked c) {
        rolls.cancelBlockedTimer();
    }

    @Override
    public void abandonInFlight(RunEffect.AbandonInFlight a) {
        rolls.abandonInFlight(a.why());
    }

    @Override
    public void finalInventory(RunEffect.FinalInventory f) {
        long epoch = epoch();
        Future<List<Node>> read = nodes.inventory(nodeOps);
        if (read != null) {
            read.onComplete(ar -> {
                RunInput in = ar.failed() ? new RunInput.InventoryFailed(ErrorText.message(ar.cause())) : null;
                loop.answer(epoch, in != null || !loop.current(epoch) ? in : nodes.inventoryRead(ar.result()));
            });
        }
    }

    @Override
    public void reportOnly(RunEffect.ReportOnly r) {
        reportOnly();
    }

    @Override
    public void finish(RunEffect.Finish f) {
        finish.run();
    }

    private RunInput planned(Map<String, Classification> latest) {
        RolloutPlan plan = RolloutPlan.decide(action, results.initial(), latest, view::facts);
        nodes.fresh().addAll(plan.fresh());
        return new RunInput.Planned(plan);
    }

    /** The Lease was not acquired: the report still classifies every node. */
    private void reportOnly() {
        informers.listAndClassify().onComplete(ar -> {
            if (ar.succeeded()) {
                ar.result().values().forEach(results::classified);
            }
            loop.feed(new RunInput.Reported());
        });
    }

    /** Starts the informers and classifies every node; a transient failure is retried while the Lease is held. */
    private void observe(long epoch) {
        int attempt = ((RunStep.Observing) loop.machine().state()).attempt();
        if (attempt == 1) {
            observeStart = ticker.nanoTime();
        }
        informers.start(nodes, rolls::pump).onComplete(ar -> {
            if (!loop.current(epoch)) {
                return;
            }
            if (ar.failed()) {
                boolean again = retry.again(ar.cause(), attempt, observeStart);
                if (again) {
                    informers.close();
                }
                loop.feed(new RunInput.ObserveFailed(ErrorText.message(ar.cause()), again));
                return;
            }
            ar.result().values().forEach(results::classified);
            observer.accept(new RunEvent.Classified(List.copyOf(results.initial())));
            loop.feed(new RunInput.Observed(results.size()));
        });
    }
}
