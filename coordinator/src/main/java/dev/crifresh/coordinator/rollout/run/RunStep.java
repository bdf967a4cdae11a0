package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.common.retry.Retry;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.lease.LeaseKeeper;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.plan.ApiAway;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.run.RunEffect.*;
import dev.crifresh.coordinator.rollout.run.RunInput.*;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One rollout run as a pure state machine: {@link #next}{@code (run, input) → (run, effects)}; {@link Rollout}
 * carries the effects out and feeds the answers back, each with the epoch of the state that asked for it.
 * <ol>
 *   <li><b>Lock</b> ({@link LeaseKeeper}): the Lease {@code crifresh-rollout} taken ({@link LockAcquired}, retried
 *       until {@code --lock-timeout}) starts the run and is renewed every third of its duration; not taken, the run
 *       only classifies the nodes for its report ({@link ReportOnly}) and ends (exit 4). The hold fences every write;
 *       lost (taken by force, not renewed in time), in-flight nodes are abandoned as they are for the next run and
 *       the run ends at once (exit 4). With {@code --api-outage-budget} a lapsed hold is suspended, not lost.</li>
 *   <li><b>Observe</b>: start the informers and classify every node; a transient failure is retried with backoff
 *       (500 ms doubling to 5 s) while {@link ApiRetry} allows, else the run stops.</li>
 *   <li><b>Classify</b>: the first classification is announced ({@link RunEvent.Classified}).</li>
 *   <li><b>Wait for config</b>: config-pending nodes are waited for up to {@code --config-timeout}; when it
 *       passes first, the run stops before any reboot (exit 3).</li>
 *   <li><b>Plan</b> ({@link RolloutPlan}) on a fresh classification; the gates start and the skipped nodes' pull
 *       proof runs — a failed proof stops the run before any reboot.</li>
 *   <li><b>Pre-flight</b>: action none waits for every node to turn fresh; auto first waits for the nodes that
 *       restart containerd themselves, then goes on with the reboots; else (and after auto's wait) a reboot that
 *       takes the API server away ({@link ApiAway}) or that the driver cannot do ({@link DriverCheck}) stops the
 *       run before any node is touched; an earlier run's leftovers are released, then the stale nodes tainted.</li>
 *   <li><b>Roll</b> ({@link RollingPhase}): nodes an earlier run may have rebooted are resumed at once (only waited
 *       for); then workers — already-unavailable ones first — as many at once as {@code --max-unavailable} allows,
 *       counting nodes NotReady or cordoned by others, then control planes one at a time while every other one is
 *       Ready (both checks see every node of the cluster); nothing able to start for {@code --stall-timeout} stops
 *       the run (exit 3).</li>
 *   <li><b>Joined nodes</b> are decided as they settle ({@link JoinedNodes}); with auto, one joining during the
 *       wait is rebooted after it.</li>
 *   <li><b>Stop at the first failure</b>: the first {@link Stop} wins; nothing new starts, nodes in progress that
 *       were not rebooted yet are released, rebooting ones are waited for, the rest are not-attempted.</li>
 *   <li><b>Final inventory</b>: once idle, a last read of the nodes; a node nobody decided yet is handled as
 *       joined, the run ends only when every node is fresh or reported.</li>
 *   <li><b>Finish</b> ({@link Finish}): taints off, silences expired, Events settled, Lease released.</li>
 * </ol>
 */
final class RunStep {
    private RunStep() {
    }

    /** What the steps need of the settings. */
    record Config(Action action, Duration configTimeout, Duration attestTimeout, Duration stallTimeout, String registry) {
    }

    /** Why the run stops: the first one wins. */
    record Stop(StopReason reason, String why) {
    }

    /** The machine's position: the run's state, the epoch answers must carry (it changes with the kind of state), why it stops. */
    record Machine(long epoch, RunState state, Stop stop) {
        static Machine start() {
            return new Machine(0, new Locking(), null);
        }

        boolean stopping() {
            return stop != null;
        }

        boolean done() {
            return state instanceof Done;
        }

        Machine to(RunState next) {
            return new Machine(next.getClass() == state.getClass() ? epoch : epoch + 1, next, stop);
        }
    }

    sealed interface RunState permits Locking, Observing, ConfigWait, Deciding, Waiting, Rolling, Done {
    }

    record Locking() implements RunState {
    }

    /**
     * @param retry the observe back-off ({@link #OBSERVE_RETRY}): its failures are the failed starts of the informers so
     *              far. Its first attempt is at 0: {@link ApiRetry} decides on its own clock whether to retry at all
     */
    record Observing(Retry retry) implements RunState {
        /** The state at start attempt {@code attempt} (1 for the first). */
        static Observing at(int attempt) {
            return new Observing(new Retry(OBSERVE_RETRY, attempt - 1, 0));
        }

        /** How many times the informers were started, this start included. */
        int attempt() {
            return retry.failures() + 1;
        }
    }

    record ConfigWait() implements RunState {
    }

    /** Plan, gates, pre-flight, leftovers, placement: nothing rolls yet. */
    record Deciding() implements RunState {
    }

    /** @param reboots with action auto, the reboots that follow the wait (null: action none, nothing follows) */
    record Waiting(List<NodeFacts> reboots, List<NodeFacts> leftovers) implements RunState {
    }

    record Rolling(int budget) implements RunState {
    }

    record Done() implements RunState {
    }

    /** Where the run goes once leftovers are released. */
    enum After { WAIT_FRESH, PLACE }

    /** The next run and what to do. */
    record Step(Machine run, List<RunEffect> effects) {
    }

    /** The observe backoff: 500 ms doubling to 5 s; {@link ApiRetry} decides whether to retry at all. */
    static final RetryPolicy OBSERVE_RETRY = RetryPolicy.doubling(Duration.ofMillis(500), Duration.ofSeconds(5));

    static Step next(Config config, Machine run, RunInput in) {
        List<RunEffect> fx = new ArrayList<>();
        if (run.done()) {
            return new Step(run, fx);
        }
        Machine r = apply(config, run, in, fx);
        return new Step(r, fx);
    }

    /** The Lock and Observe steps, the interruption and the config wait; every other input goes on to {@link #preflight}. */
    private static Machine apply(Config config, Machine run, RunInput in, List<RunEffect> fx) {
        if (in instanceof LockAcquired) {
            fx.add(new Observe());
            return run.to(Observing.at(1));
        } else if (in instanceof LockNotAcquired n) {
            fx.add(new ReportOnly());
            return stop(run, StopReason.LOCK_NOT_ACQUIRED, n.why(), fx);
        } else if (in instanceof LockLost l) {
            Machine r = stop(run, StopReason.LOCK_LOST, l.why(), fx);
            fx.add(new AbandonInFlight("the rollout lock was lost"));
            return finish(r, fx);
        } else if (in instanceof LockAbandoned || in instanceof Reported) {
            return finish(run, fx);
        } else if (in instanceof Interrupt) {
            Machine r = stop(run, StopReason.INTERRUPTED, "interrupted", fx);
            fx.add(new AbandonInFlight("interrupted"));
            return run.state() instanceof Locking ? r : finish(r, fx);
        } else if (in instanceof Observed o) {
            return run.stopping() ? finish(run, fx) : configWait(run, fx);
        } else if (in instanceof ObserveFailed f && run.state() instanceof Observing o) {
            if (f.retryable()) {
                fx.add(new Emit(new RunEvent.WatchRetry(f.why())));
                Retry failed = o.retry().failed();
                fx.add(new ObserveLater(failed.delay()));
                return run.to(new Observing(failed));
            }
            return finish(stop(run, StopReason.NODE_FAILED, "cannot watch nodes: " + f.why(), fx), fx);
        } else if (in instanceof ObserveDue && run.state() instanceof Observing) {
            fx.add(new Observe());
            return run;
        } else if (in instanceof ConfigReady && run.state() instanceof ConfigWait) {
            if (run.stopping()) {
                return finish(run, fx);
            }
            fx.add(new Classify());
            return run.to(new Deciding());
        } else if (in instanceof ConfigTimedOut t && run.state() instanceof ConfigWait) {
            String seconds = DurationText.format(config.configTimeout());
            Machine r = stop(run, StopReason.TIMED_OUT, t.details().size() + " node(s) did not hold the desired credential for "
                    + config.registry() + " within " + seconds + ": " + String.join(", ", t.details().keySet()) + "; nothing was rebooted", fx);
            t.details().forEach((name, detail) -> fx.add(new NodeRecord(name, Decision.WAIT, Outcome.FAILED,
                    "config did not hold the desired credential within " + seconds + ": " + detail)));
            return finish(r, fx);
        }
        return preflight(config, run, in, fx);
    }

    /** The plan, the gates and proofs, the preflight checks and the leftovers' release. */
    private static Machine preflight(Config config, Machine run, RunInput in, List<RunEffect> fx) {
        if (in instanceof Planned p) {
            record(config, p.plan(), fx);
            fx.add(new StartGates(p.plan()));
            return run;
        } else if (in instanceof PlanFailed f) {
            return finish(stop(run, StopReason.NODE_FAILED, "cannot classify the nodes: " + f.why(), fx), fx);
        } else if (in instanceof GatesPassed g) {
            return gatesPassed(config, run, g.plan(), fx);
        } else if (in instanceof ProofsFailed p) {
            p.failed().forEach((name, why) -> fx.add(new NodeRecord(name, null, Outcome.FAILED, "skipped as fresh, but " + why)));
            String why = p.failed().isEmpty() ? "the pull proof could not run: " + p.cause()
                    : String.join(", ", p.failed().keySet()) + " attest fresh but failed the pull proof ("
                            + p.failed().values().iterator().next() + "); nothing was rebooted";
            return finish(stop(run, StopReason.NODE_FAILED, why, fx), fx);
        } else if (in instanceof NoAttestationsFound n) {
            return finish(stop(run, StopReason.NO_ATTESTATIONS, n.found().message(), fx), fx);
        } else if (in instanceof PreflightRefused p) {
            p.refused().forEach((name, why) -> fx.add(new NodeRecord(name, null, Outcome.FAILED, "not rebooted: " + why)));
            return finish(stop(run, StopReason.NODE_FAILED, "refused to reboot " + String.join(", ", p.refused().keySet()) + ": "
                    + p.refused().values().iterator().next() + "; no node was touched", fx), fx);
        } else if (in instanceof Prechecked c) {
            if (c.problems().isEmpty()) {
                fx.add(new Release(c.leftovers(), After.PLACE, c.reboots(), null));
                return run;
            }
            c.problems().forEach((name, why) -> {
                if (c.reported().contains(name)) {
                    fx.add(new NodeRecord(name, null, Outcome.FAILED, "cannot be rebooted: " + why));
                }
            });
            return finish(stop(run, StopReason.NODE_FAILED, "the reboot driver cannot reboot " + String.join(", ", c.problems().keySet())
                    + ": " + c.problems().values().iterator().next() + "; no node was touched", fx), fx);
        } else if (in instanceof Released r) {
            return released(run, r, fx);
        }
        return rolling(config, run, in, fx);
    }

    /** The roll, the fresh wait and the final inventory. */
    private static Machine rolling(Config config, Machine run, RunInput in, List<RunEffect> fx) {
        if (in instanceof Placed p) {
            fx.add(new StartRolling(p.ordered(), p.budget()));
            return run.to(new Rolling(p.budget()));
        } else if (in instanceof FreshWaitEnded && run.state() instanceof Waiting w) {
            if (w.reboots() == null || run.stopping()) {
                fx.add(run.stopping() ? new Finish() : new FinalInventory());
                return run.stopping() ? run.to(new Done()) : run;
            }
            // Out of the wait: a node that joins now is decided when the roll begins.
            fx.add(new Preflight(w.reboots(), w.leftovers(), true));
            return run.to(new Deciding());
        } else if (in instanceof FreshTimedOut t && run.state() instanceof Waiting) {
            String seconds = DurationText.format(config.attestTimeout());
            t.details().forEach((name, detail) -> fx.add(new NodeRecord(name, null, Outcome.FAILED,
                    "did not attest fresh within " + seconds + ": " + detail)));
            return finish(stop(run, StopReason.TIMED_OUT, t.details().size() + " node(s) did not attest fresh within " + seconds + ": "
                    + String.join(", ", t.details().keySet()), fx), fx);
        } else if (in instanceof JoinedAfterWait j && run.state() instanceof Waiting w && w.reboots() != null) {
            List<NodeFacts> reboots = new ArrayList<>(w.reboots());
            reboots.add(j.node());
            return run.to(new Waiting(reboots, w.leftovers()));
        } else if (in instanceof Halt h) {
            return stop(run, h.reason(), h.why(), fx);
        } else if (in instanceof Blocked b) {
            return stop(run, StopReason.TIMED_OUT, "no node could start for " + DurationText.format(config.stallTimeout()) + ": " + b.why(), fx);
        } else if (in instanceof Idle) {
            if (run.stopping()) {
                return finish(run, fx);
            }
            fx.add(new FinalInventory());
            return run;
        } else if (in instanceof InventoryFailed f) {
            return finish(stop(run, StopReason.NODE_FAILED, "the final inventory read failed: " + f.why(), fx), fx);
        } else if (in instanceof InventoryDone d) {
            fx.add(new Emit(new RunEvent.InventoryDone(d.selected())));
            return finish(run, fx);
        }
        return run;
    }

    private static Machine configWait(Machine run, List<RunEffect> fx) {
        fx.add(new StartConfigWait());
        return run.to(new ConfigWait());
    }

    /** The report's record of each planned node, and with action auto its announced action. */
    private static void record(Config config, RolloutPlan plan, List<RunEffect> fx) {
        for (RolloutPlan.NodePlan n : plan.nodes()) {
            fx.add(new NodeRecord(n.name(), n.decision(), n.outcome(), n.detail()));
            if (n.announced() && config.action() == Action.AUTO) {
                fx.add(new Emit(new RunEvent.NodeDecided(n.name(), n.action())));
            }
        }
    }

    private static Machine gatesPassed(Config config, Machine run, RolloutPlan plan, List<RunEffect> fx) {
        if (config.action() == Action.NONE) {
            fx.add(new Release(plan.leftovers(), After.WAIT_FRESH, plan.waits(), new Waiting(null, List.of())));
            return run;
        }
        if (config.action() == Action.AUTO && !plan.waits().isEmpty()) {
            // auto: first the nodes that restart containerd themselves (no side effect), then the reboots.
            fx.add(new Release(plan.waitedLeftovers(), After.WAIT_FRESH, plan.waits(), new Waiting(plan.reboots(), plan.deferredLeftovers())));
            return run;
        }
        fx.add(new Preflight(plan.reboots(), plan.leftovers(), false));
        return run;
    }

    private static Machine released(Machine run, Released r, List<RunEffect> fx) {
        if (r.then() == After.WAIT_FRESH) {
            fx.add(new WaitForFresh(r.nodes()));
            return run.to(r.next());
        }
        if (r.failure() != null) {
            return finish(stop(run, StopReason.NODE_FAILED, "could not release an earlier run's leftover nodes: " + r.failure(), fx), fx);
        }
        fx.add(new Place(r.nodes()));
        return run;
    }

    private static Machine stop(Machine run, StopReason reason, String why, List<RunEffect> fx) {
        fx.add(new CancelBlocked());
        if (run.stop() != null) {
            return run;
        }
        fx.add(new Emit(new RunEvent.Stopping(reason, why, run.state() instanceof Rolling)));
        return new Machine(run.epoch(), run.state(), new Stop(reason, why));
    }

    private static Machine finish(Machine run, List<RunEffect> fx) {
        fx.add(new Finish());
        return run.to(new Done());
    }
}
