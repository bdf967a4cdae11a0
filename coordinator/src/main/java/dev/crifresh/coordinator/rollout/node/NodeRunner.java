package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.gate.NodeGates;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.node.NodeEffect.*;
import dev.crifresh.coordinator.rollout.node.NodeInput.*;
import dev.crifresh.coordinator.rollout.node.NodeState.Done;
import dev.crifresh.coordinator.rollout.node.NodeState.Draining;
import dev.crifresh.coordinator.rollout.node.NodeState.Queued;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.Phase;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Function;

/**
 * One node's way through a rollout: the effect runner of its pure steps ({@link NodeStep}, which states the algorithm).
 * <ol>
 *   <li>an input (an answer, or what the run observed) goes through {@link NodeStep#next}, which gives the new state and
 *       the effects to carry out, in order;</li>
 *   <li>each effect is carried out through the roll's ports ({@link RollPorts}: nodes, pods, the reboot, the fence, the
 *       {@link Ticker}) and the run it belongs to ({@link RollHost}: its view, the gates, Events, progress); every call
 *       that writes passes the {@link Fence} right before it is sent — while an allowed
 *       API outage lasts it is held back, and the step is told {@link Outage} once the run may write again;</li>
 *   <li>every answer carries the epoch of the state that asked for it (the epoch moves on with each new kind of state):
 *       an answer for a state the roll has left is dropped here, and nowhere else;</li>
 *   <li>an input that arrives while effects are being carried out waits its turn (no re-entrant step).</li>
 * </ol>
 * Every node patch is a {@link GuardedPatch}, decided first on the copy of the node the run already has.
 */
public final class NodeRunner {
    private final RollPorts ports;
    private final RollHost run;
    private final String name;
    private final Role role;
    private final int index;
    private final int total;
    private final DrainRunner drain;
    private final String note;
    /** The state, its epoch, and the inputs waiting their turn. */
    private final NodeLoop loop;

    private long timer = -1;
    /** The epoch of the drain's state: its answers are dropped once the roll left it. */
    private long drainEpoch = -1;
    /** The node as this roll's last call returned it: decides the next patch without a read when the run has no copy. */
    private Node lastSeen;

    /**
     * @param resumeFrom the ownership an earlier run left on the node in a phase where its reboot may have
     *                   happened (rebooting, verifying), or null
     */
    public NodeRunner(RollPorts ports, RollHost run, NodeFacts facts, int index, int total, Ownership resumeFrom) {
        this(ports, run, facts, index, total, resumeFrom, null);
    }

    /**
     * @param note why the node is rolled again in this run (an earlier run's record judged never carried out), or null:
     *             recorded with its ownership and put before its report's detail
     */
    public NodeRunner(RollPorts ports, RollHost run, NodeFacts facts, int index, int total, Ownership resumeFrom, String note) {
        this.note = note;
        this.ports = ports;
        this.run = run;
        this.name = facts.name();
        this.role = facts.role();
        this.index = index;
        this.total = total;
        this.loop = new NodeLoop(NodeStep.start(NodeState.RollFacts.of(name, ports.settings().runId(), resumeFrom, ports.settings().timeouts(),
                new UnsentReboot.Allowance(ports.settings().leaseDuration(), ports.settings().clockSkew()))), this::carryOut);
        this.drain = new DrainRunner(ports, name, () -> state() instanceof Draining && loop.epoch() == drainEpoch, this::say,
                () -> deliver(drainEpoch, new Drained()), why -> deliver(drainEpoch, new DrainFailed(why)));
    }

    public String name() {
        return name;
    }

    public Role role() {
        return role;
    }

    public String prefix() {
        return "[" + index + "/" + total + "] " + name;
    }

    /** Whether this resumes a node an earlier run may already have rebooted. */
    public boolean resumed() {
        return state().roll().resumed();
    }

    public boolean finished() {
        return state() instanceof Done;
    }

    /** How the roll ended, or null while it has not. */
    public NodeEnd end() {
        return state() instanceof Done done ? done.end() : null;
    }

    public Outcome outcome() {
        NodeEnd end = end();
        return end == null ? null : end.outcome();
    }

    public String detail() {
        NodeEnd end = end();
        return end == null ? null : note == null ? end.why() : note + "; " + end.why();
    }

    /** The state, for tests. */
    NodeState state() {
        return loop.state();
    }

    // ---- what the run tells the roll ---------------------------------------------------------------------------

    public void start() {
        NodeFacts facts = run.facts(name);
        if (facts != null && !ports.fence().mayWrite()) {
            // fenced: a lost Lease ends the run, which abandons this node untouched; after an allowed outage, start then
            ports.fence().whenMayWrite().onSuccess(v -> {
                if (state() instanceof Queued) {
                    start();
                }
            });
            return;
        }
        deliver(loop.epoch(), new Start(facts));
    }

    /** The informer saw a change of this node. */
    public void onUpdate() {
        deliver(loop.epoch(), new NodeUpdated(run.facts(name)));
    }

    /** The informer saw the node disappear (while a call is in flight, its answer ends the node instead). */
    public void onDeleted() {
        deliver(loop.epoch(), new NodeDeleted());
    }

    /** The run is interrupted: stop here and leave the node as it is, for a rerun to resume. */
    public void abandon(String why) {
        deliver(loop.epoch(), new Abandon(why));
    }

    // ---- the runner ------------------------------------------------------------------------------------------

    /** Takes an input asked for in {@code asked} (an epoch); dropped when the roll has moved on since. */
    private void deliver(long asked, NodeInput input) {
        loop.deliver(asked, input);
    }

    /** Carries out one effect of the step; a type this does not know fails loudly. Package-private for its test. */
    void carryOut(NodeEffect effect) {
        long e = loop.epoch();
        if (effect instanceof Gate g) {
            gates().beforeTakeDown(g.facts(), run.clusterView(), () -> loop.epoch() != e || run.stopping(), this::say)
                    .onComplete(ar -> deliver(e, gateAnswer(ar)));
        } else if (effect instanceof Claim) {
            GuardedPatch.claim(ports, name, run.cached(name), RollPatches.claim(runId(), note)).onComplete(ar -> deliver(e, answer(ar, false)));
        } else if (effect instanceof StartDrain) {
            drainEpoch = e;
            drain.start();
        } else if (effect instanceof ReadForCheck) {
            readForCheck(e);
        } else if (effect instanceof RecordRebooting r) {
            record(e, r);
        } else if (effect instanceof SilenceAndConfirm) {
            whenMayWrite(e, () -> run.silence(name).compose(v -> ports.fence().confirm()).onComplete(ar -> {
                if (ar.succeeded()) {
                    deliver(e, new Confirmed(ports.fence().lapses()));
                } else if (ar.cause() instanceof GuardedPatch.Fenced) {
                    // a Lease taken by force ends the run; a hold that lapsed: check everything again once it is back
                    ports.fence().whenMayWrite().onSuccess(v -> deliver(e, new Outage()));
                } else {
                    deliver(e, new Failed(ErrorText.message(ar.cause())));
                }
            }));
        } else if (effect instanceof CallDriver c) {
            whenMayWrite(e, () -> ports.reboot().request(c.node()).onComplete(ar -> {
                if (ar.failed() && ar.cause() instanceof GuardedPatch.Fenced) {
                    deliver(e, new DriverRefused()); // refused on the worker before anything was sent
                } else {
                    deliver(e, new DriverAnswered(ar.succeeded() ? null : ErrorText.message(ar.cause())));
                }
            }));
        } else {
            carryOutAfterReboot(effect, e);
        }
    }

    /** The effects from the reboot request on (and the timer, progress and end); a type this does not know fails loudly. */
    private void carryOutAfterReboot(NodeEffect effect, long e) {
        if (effect instanceof MarkVerifying) {
            guarded(RollPatches.phase(runId(), resumedRunId(), Phase.VERIFYING)).onComplete(ar -> deliver(e, answer(ar, false)));
        } else if (effect instanceof ResetPhase) {
            guarded(RollPatches.phase(runId(), resumedRunId(), Phase.DRAINING)).onComplete(ar -> deliver(e, answer(ar, false)));
        } else if (effect instanceof AwaitMayWrite) {
            ports.fence().whenMayWrite().onSuccess(v -> deliver(e, new Outage())); // a lost Lease ends the run instead
        } else if (effect instanceof Release rel) {
            boolean[] uncordons = {false};
            guarded(node -> {
                GuardedPatch.Step s = RollPatches.release(runId(), resumedRunId(), rel.cordonedByUs(), rel.bootId(), node);
                if (s instanceof GuardedPatch.Patch) {
                    uncordons[0] = RollPatches.uncordons(rel.cordonedByUs(), node);
                }
                return s;
            }).onComplete(ar -> deliver(e, answer(ar, uncordons[0])));
        } else if (effect instanceof Prove) {
            gates().afterReturn(run.facts(name), run.clusterView(), () -> loop.epoch() != e, this::say)
                    .onComplete(ar -> deliver(e, gateAnswer(ar)));
        } else if (effect instanceof Look) {
            deliver(e, new NodeUpdated(run.facts(name)));
        } else if (effect instanceof Classify) {
            deliver(e, new Classified(run.facts(name), run.classifyNow(name)));
        } else if (effect instanceof ArmTimer t) {
            cancelTimer();
            timer = ports.ticker().setTimer(t.delay(), () -> {
                timer = -1;
                deliver(e, new TimerFired());
            });
        } else if (effect instanceof CancelTimer) {
            cancelTimer();
            drain.stop();
        } else if (effect instanceof Say s) {
            if (s.error()) {
                run.progress(this, ProgressListener.Level.ERROR, s.text());
            } else {
                say(s.text());
            }
        } else if (effect instanceof NodeEffect.Event ev) {
            run.event(name, ev.reason(), ev.message());
        } else if (effect instanceof RebootRequested) {
            run.rebootRequested(this);
        } else if (effect instanceof Finish) {
            run.finished(this);
        } else {
            throw new IllegalStateException("unhandled " + effect);
        }
    }

    /** The last-moment check's fresh reads: the node and every node (shared with the run's other nodes). */
    private void readForCheck(long e) {
        if (run.stopping()) {
            deliver(e, new Stopping());
            return;
        }
        whenMayWrite(e, () -> {
            int lapse = ports.fence().lapses();
            Future<Node> node = ports.retry().call(() -> ports.nodes().get(name));
            Future<List<NodeFacts>> all = run.freshNodeList();
            Future.all(node, all).onComplete(ar -> {
                if (ar.failed()) {
                    deliver(e, new Failed(ErrorText.message(ar.cause())));
                    return;
                }
                if (node.result() != null) {
                    lastSeen = node.result();
                }
                deliver(e, new Read(node.result(), all.result(), run.inFlight(),
                        run.budget(), lapse, ports.ticker().nanoTime()));
            });
        });
    }

    /** Phase rebooting, decided on the check's read; a refused guard reads the node again and checks it once more. */
    private void record(long e, RecordRebooting r) {
        whenMayWrite(e, () -> {
            NodeFacts startedAs = state().roll().startedAs();
            RollPatches.Recording[] last = {null};
            GuardedPatch.apply(ports, name, r.node(), node -> {
                last[0] = RollPatches.rebooting(runId(), r.recorded(), startedAs, r.cluster(), r.inFlight(), r.budget(), node,
                        ports.clock().instant().truncatedTo(ChronoUnit.MILLIS));
                return last[0].step();
            }).onComplete(ar -> {
                if (ar.succeeded() && last[0].verdict() instanceof LastMomentCheck.Go go) {
                    lastSeen = ar.result() == null ? r.node() : ar.result();
                    deliver(e, new Recorded(ar.result() == null ? r.node() : ar.result(), go.bootId(), ports.fence().lapses(), run.stopping()));
                } else if (ar.failed() && ar.cause() instanceof GuardedPatch.Refused) {
                    deliver(e, new RecordRefused(last[0].verdict(), ports.ticker().nanoTime()));
                } else {
                    deliver(e, answer(ar, false));
                }
            });
        });
    }

    /** Runs {@code send} now if the run may write, else once it may again (the step is told {@link Outage}). */
    private void whenMayWrite(long e, Runnable send) {
        if (ports.fence().mayWrite()) {
            send.run();
        } else {
            ports.fence().whenMayWrite().onSuccess(v -> deliver(e, new Outage())); // a lost Lease ends the run
        }
    }

    /** A guarded patch of the node, decided first on the run's copy; a claim when it writes over the resumed run's ownership. */
    private Future<Node> guarded(Function<Node, GuardedPatch.Step> decide) {
        Node known = run.cached(name) != null ? run.cached(name) : lastSeen;
        return resumed() ? GuardedPatch.claim(ports, name, known, decide)
                : GuardedPatch.apply(ports, name, known, decide);
    }

    private NodeInput answer(AsyncResult<Node> ar, boolean uncordoned) {
        if (ar.succeeded()) {
            lastSeen = ar.result();
            return new Patched(ar.result(), uncordoned);
        }
        if (ar.cause() instanceof GuardedPatch.Refused refused) {
            return new Refused(refused.getMessage());
        }
        return ar.cause() instanceof GuardedPatch.Fenced ? new Fenced() : new Failed(ErrorText.message(ar.cause()));
    }

    private NodeInput gateAnswer(AsyncResult<GateVerdict> ar) {
        return new GateAnswered(ar.succeeded() ? ar.result() : null, ar.failed() ? ErrorText.message(ar.cause()) : null,
                run.stopping());
    }

    private NodeGates gates() {
        return run.gates();
    }

    private String runId() {
        return ports.settings().runId();
    }

    private String resumedRunId() {
        Ownership from = state().roll().resumeFrom();
        return from == null ? null : from.runId();
    }

    private void cancelTimer() {
        if (timer >= 0) {
            ports.ticker().cancelTimer(timer);
            timer = -1;
        }
    }

    private void say(String text) {
        run.progress(this, text);
    }
}
