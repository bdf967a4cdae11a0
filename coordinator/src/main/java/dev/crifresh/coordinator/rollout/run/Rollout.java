package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.lease.LeaseFence;
import dev.crifresh.coordinator.rollout.lease.LeaseKeeper;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import dev.crifresh.coordinator.rollout.node.RollHost;
import dev.crifresh.coordinator.rollout.node.RollPorts;
import dev.crifresh.coordinator.rollout.node.RollSettings;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.RunObserver;
import dev.crifresh.coordinator.rollout.observe.RunSilences;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.ClassificationCache;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.rollout.view.RunInformers;
import dev.crifresh.coordinator.rollout.view.SharedNodeList;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;

/**
 * One rollout run: carries out the steps of {@link RunStep} (the algorithm, as numbered steps) and feeds their
 * answers back, each with the epoch of the state that asked for it — an answer for a state the run has left is
 * dropped here, and nowhere else. Everything runs on one Vert.x context; blocking Kubernetes calls, the classification
 * and the reboot driver run on worker threads, and every write passes the run's {@link Fence} on the event loop and
 * again on the worker right before it is sent ({@link RunPorts}). The parts: the Lease ({@link LeaseKeeper}), the
 * node view ({@link NodeView}) and its events ({@link RunNodes}), the plan ({@link RolloutPlan}), the pre-flight
 * ({@link RunPreflight}), the rolls ({@link RollingPhase}, each node's {@link NodeRunner} working through its
 * {@link RollPorts} and seeing the run as a {@link RollHost}, a {@link RunHost} over the {@link RunParts} this builds
 * once and hands to each part), the report ({@link RunResults}) and the progress lines
 * and Events ({@link RunObserver}).
 */
public final class Rollout {
    private final Context context;
    private final RunPreflight.Rules preflight;
    private final Ticker ticker;
    private final LeaseKeeper lease;
    private final RolloutEvents events;
    private final RunObserver observer;
    private final StaleNodeTaints taints;
    private final RunInformers informers;
    private final RunEffects effects;
    private final NodeView view = new NodeView();
    private final RunResults results = new RunResults();
    private final RollPorts roll;
    private final RollingPhase rolls;
    private final RunNodes nodes;
    private final RebootDriver driver;
    private final Promise<Report> promise = Promise.promise();
    private final Gates gates;
    private final RunSilences silences;
    private final RunLoop loop;
    private boolean lockHeld;
    /** False once the run ended: read by the fence, also on worker threads. */
    private volatile boolean open = true;

    /** Builds the run's parts, each with only its settings record; nothing is set after. */
    public Rollout(RunContext run) {
        CoordinatorSettings settings = run.settings();
        RunContext.Io io = run.io();
        String runId = settings.lease().runId();
        this.context = run.context();
        this.preflight = new RunPreflight.Rules(settings.limits(), settings.lease().apiOutageBudget(), run.options().apiHost());
        this.ticker = Ticker.of(run.vertx());
        RunStep.Config config = new RunStep.Config(settings.limits().action(), settings.timeouts().config(),
                settings.timeouts().attest(), settings.timeouts().stall(), run.classifier().registry());
        this.loop = new RunLoop(config, this::carryOut);
        this.lease = new LeaseKeeper(ticker, io.lease(), settings.lease(), run.progress(), new LeaseEvents());
        Duration leaseDuration = settings.lease().leaseDuration();
        LeaseFence fence = new LeaseFence(this.lease, () -> open, ticker, leaseDuration);
        RunPorts ports = RunPorts.fenced(io.nodes(), io.pods(), io.driver(), io.events(), fence, ticker, leaseDuration, this::patched);
        this.roll = ports.forRolls(run.vertx(), RollSettings.of(settings), ticker, run.clock());
        this.driver = ports.driver();
        this.events = new RolloutEvents(ports.events(), runId, view::raw, run.progress(), run.clock(), fence.closing()::mayWrite);
        this.observer = new RunObserver(run.progress(), events);
        observer.also(run.options().runEvents());
        // The taints come off also while the run ends (after it is done): retried for as long as the Lease is held.
        this.taints = new StaleNodeTaints(ports.cleanup(), runId, settings.limits().staleTaint(), observer, view::raw);
        this.informers = new RunInformers(context, run.classifier(), run.clock(), new ClassificationCache(run.classifier()),
                roll.nodes(), view, settings.selection().nodeSelector() != null, () -> loop.machine().done());
        SharedNodeList<NodeFacts> freshNodes = new SharedNodeList<>(() -> roll.retry().call(roll.nodes()::listAll).map(NodeFacts::all));
        this.gates = run.options().gates();
        this.silences = new RunSilences(run.options().silences(), o -> observer.accept(new RunEvent.Silence(o)));
        RunParts parts = new RunParts(context, loop, view, informers, gates, freshNodes, silences, fence::mayWrite, observer, results);
        this.rolls = new RollingPhase(roll, parts, taints);
        this.nodes = new RunNodes(ticker, parts, rolls, taints, config);
        this.effects = new RunEffects(new RunEffects.Parts(loop, roll.retry(), roll.nodes(), view, informers, nodes, rolls, results),
                config.action(), ticker, observer, this::runPreflight, () -> gates, this::finish);
    }

    /** Runs the rollout; call on the rollout's context. */
    public Future<Report> run() {
        lease.acquire();
        return promise.future();
    }

    /** Stops at once: nothing new starts, in-progress nodes are left as they are for a rerun to resume. */
    public void interrupt() {
        feed(new RunInput.Interrupt());
    }

    // ---- the step and its effects ----------------------------------------------------------------------------

    private void feed(RunInput input) {
        loop.feed(input);
    }

    private void carryOut(RunEffect effect) {
        RunEffect.dispatch(effect, effects);
    }

    private RunPreflight runPreflight() {
        return new RunPreflight(context, preflight, driver, roll, view, results, taints, observer);
    }

    // ---- 1. lock ---------------------------------------------------------------------------------------------

    private final class LeaseEvents implements LeaseKeeper.LockListener {
        @Override
        public boolean done() {
            return loop.machine().done();
        }

        @Override
        public boolean interrupted() {
            return loop.machine().stop() != null && loop.machine().stop().reason() == StopReason.INTERRUPTED;
        }

        @Override
        public void lockAcquired() {
            lockHeld = true;
            observer.accept(new RunEvent.LockAcquired());
            feed(new RunInput.LockAcquired());
        }

        @Override
        public void lockAbandoned() {
            feed(new RunInput.LockAbandoned());
        }

        @Override
        public void lockNotAcquired(String why) {
            feed(new RunInput.LockNotAcquired(why));
        }

        /** No side effect at all from here on: nodes in progress are abandoned as they are, the run ends now. */
        @Override
        public void lockLost(String why) {
            observer.accept(new RunEvent.LockLost(why));
            feed(new RunInput.LockLost(why));
        }
    }

    /** A patch we sent returned this node (see {@link RunPorts}). */
    private void patched(Node node) {
        if (!loop.machine().done() && node != null) {
            view.patched(node);
        }
    }

    // ---- finish ----------------------------------------------------------------------------------------------

    /** Every exit path: the report, crifresh's taints off, silences expired, Events settled, the Lease released. */
    private void finish() {
        open = false;
        String error = loop.machine().stop() == null ? null : loop.machine().stop().why();
        nodes.finish(error);
        rolls.cancelBlockedTimer();
        lease.stopRenewing();
        rolls.abandonQueued("not attempted: the rollout stopped (" + error + ")");
        Report report = results.report(preflight.limits().action(), rolls::roll, loop.machine().stop(), nodes.joined().all(), gates.notes());
        RunEnd.close(gates, this::removeTaints, silences, events, ticker, lease).onComplete(ar -> {
            informers.close(); // whether or not the Lease could be released: the run is over either way
            promise.tryComplete(report.withWarnings(silences.warnings()));
        });
    }

    /**
     * Crifresh's taint comes off every selected node — also an earlier run's leftovers — unless the Lease was never
     * held (another run is working) or was lost: then no side effect at all (see docs/design.md, "Fencing"), and the
     * next run removes this run's taints as leftovers.
     */
    private Future<Void> removeTaints() {
        if (!lockHeld || loop.machine().stop() != null && loop.machine().stop().reason() == StopReason.LOCK_LOST) {
            return Future.succeededFuture();
        }
        return taints.untaintAll(view.nodes()).compose(v -> taints.untaintRemembered());
    }
}
