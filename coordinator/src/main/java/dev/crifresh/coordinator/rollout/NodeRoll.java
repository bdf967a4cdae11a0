package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.ProgressListener;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.NodePatches;
import dev.crifresh.coordinator.report.Outcome;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.time.Duration;

/**
 * One node's way through a rollout. Every method runs on the run's context; asynchronous steps check
 * on return that the node is still in the state that started them.
 * <ol>
 *   <li>{@code GATED} ({@link dev.crifresh.coordinator.gate.Gates#beforeTakeDown}): wait out its blockers (alert, pod),
 *       bounded by {@code --block-timeout}; a control plane needs a healthy etcd — else the node is not touched;</li>
 *   <li>{@code OWNING}: one JSON merge patch sets {@code crifresh.dev/rollout=<runId>/draining} and, when
 *       the node was schedulable, {@code spec.unschedulable=true} with {@code crifresh.dev/cordoned=true}
 *       (guarded by the resource version it was decided on);</li>
 *   <li>{@code DRAINING} ({@link NodeDrain}): evict every pod but DaemonSet, mirror and already-terminating pods through the
 *       Eviction API; a PDB answer (429) is retried with backoff; wait until the evicted pods are gone;
 *       all within {@code --drain-timeout};</li>
 *   <li>{@code REBOOTING}: re-check at the last moment on a fresh read ({@link LastMomentCheck}: same machine,
 *       still ours and cordoned, budget, other control planes Ready — else wait bounded, release or hands off);
 *       record phase {@code rebooting} with the fresh read's boot id and resource version; silence its alerts
 *       ({@link RollHost#silence}); check the Lease once more and call the reboot driver;</li>
 *   <li>{@code RETURNING}: wait for a new boot id and Ready within {@code --reboot-timeout}, then phase
 *       {@code verifying};</li>
 *   <li>{@code ATTESTING}: wait within {@code --attest-timeout} for a valid fresh attestation from the new
 *       boot that holds the desired credential; config-pending or unknown keep waiting; stale reboots
 *       once more (drain, reboot), never a third time;</li>
 *   <li>{@code PROVING} ({@link dev.crifresh.coordinator.gate.Gates#afterReturn}): a control plane waits for etcd to be
 *       healthy again; then the pull proof (when enabled). A failure is reported, and the node is still released:
 *       it attests fresh, and crifresh never leaves a cordon behind;</li>
 *   <li>{@code RELEASING}: uncordon only when crifresh cordoned, drop the crifresh annotations.</li>
 * </ol>
 * Every side effect is sent only while the run holds the Lease ({@link Fence#mayWrite()}); every
 * ownership, phase and release patch goes through {@link GuardedPatch}. A failure before the reboot driver is
 * invoked rolls the node back (uncordon if we cordoned, annotations
 * dropped). A failure after that — a failing driver call included, as the request may have got through —
 * leaves the node cordoned and owned, so a rerun resumes waiting for it.
 */
final class NodeRoll {
    enum State { QUEUED, GATED, OWNING, DRAINING, REBOOTING, RETURNING, ATTESTING, PROVING, RELEASING, DONE, ABANDONED }

    private final RollHost host;
    private final String name;
    private final Role role;
    private final int index;
    private final int total;
    private final Ownership resumeFrom;
    private final NodeDrain drain;

    private State state = State.QUEUED;
    private boolean busy;
    private long timer = -1;
    private int reboots;
    private boolean cordonedByUs;
    private String bootBefore;
    private String lastWaitDetail;
    private Outcome outcome;
    private String detail;
    private boolean timedOut;
    /** The node when its roll started: the last-moment check requires the same machine (UID, InternalIPs). */
    private NodeFacts startedAs;
    /** The attestations seen up to this run's driver call: none of them can prove the new boot fresh. */
    private final java.util.Set<String> attestationsBefore = new java.util.HashSet<>();
    /** When the last-moment check first said "wait" (nanoTime), or -1. */
    private long waitingSince = -1;
    /** Refusals of the phase rebooting patch on a node that did not change in between (see {@link GuardedPatch}). */
    private int rebootConflicts;
    private String rebootConflictVersion;
    /** Phase rebooting is recorded and the driver not called yet (an outage came in between): checked again as such. */
    private boolean rebootingRecorded;
    /** {@link Fence#lapses()} when the last-moment check read the nodes. */
    private int checkedInLapse;
    /** While releasing: the outcome the release completes. */
    private Outcome releasing;
    private String releasingWhy;
    /** Rebooted and fresh, but the release (uncordon) could not be done. */
    private boolean leftCordoned;

    /**
     * @param resumeFrom the ownership an earlier run left on the node in a phase where its reboot may have
     *                   happened (rebooting, verifying), or null
     */
    NodeRoll(RollHost host, NodeFacts facts, int index, int total, Ownership resumeFrom) {
        this.host = host;
        this.name = facts.name();
        this.role = facts.role();
        this.index = index;
        this.total = total;
        this.resumeFrom = resumeFrom;
        this.drain = new NodeDrain(host, name, () -> state == State.DRAINING, this::say, this::drained, this::failRollingBack);
    }

    String name() {
        return name;
    }

    Role role() {
        return role;
    }

    Outcome outcome() {
        return outcome;
    }

    String detail() {
        return detail;
    }

    /** It ended because a bounded wait for its gates ran out (exit 3), not because something failed. */
    boolean timedOut() {
        return timedOut;
    }

    String prefix() {
        return "[" + index + "/" + total + "] " + name;
    }

    /** Whether this resumes a node an earlier run may already have rebooted. */
    boolean resumed() {
        return resumeFrom != null;
    }

    boolean finished() {
        return state == State.DONE || state == State.ABANDONED;
    }

    /** Rebooted and fresh, but left cordoned: the release could not be done. */
    boolean leftCordoned() {
        return leftCordoned;
    }

    /** How the roll ended, or null while it has not. */
    NodeEnd end() {
        if (outcome == null) {
            return null;
        }
        if (state == State.ABANDONED) {
            return new NodeEnd.Abandoned(detail, outcome);
        }
        if (timedOut) {
            return new NodeEnd.TimedOut(detail);
        }
        if (leftCordoned) {
            return new NodeEnd.ReleaseFailed(detail, outcome == Outcome.REBOOTED);
        }
        return switch (outcome) {
            case REBOOTED -> new NodeEnd.Rebooted(detail);
            case NOT_ATTEMPTED -> reboots == 0 && state == State.DONE && releasing != null
                    ? new NodeEnd.RolledBack(detail, outcome) : new NodeEnd.NotStarted(detail);
            default -> reboots > 0 ? new NodeEnd.MayHaveRebooted(detail) : new NodeEnd.NotTouched(detail);
        };
    }

    // ---- start -----------------------------------------------------------------------------------

    void start() {
        NodeFacts facts = host.facts(name);
        if (facts == null) {
            finish(Outcome.FAILED, "the node was deleted before it was started");
            return;
        }
        cordonedByUs = "true".equals(facts.annotation(CrifreshAnnotations.CORDONED));
        startedAs = facts;
        if (!host.fence().mayWrite()) {
            // fenced: a lost Lease ends the run, which abandons this node untouched; after an allowed outage, start then
            host.fence().whenMayWrite().onSuccess(v -> {
                if (state == State.QUEUED) {
                    start();
                }
            });
            return;
        }
        if (resumeFrom == null) {
            gate(facts);
            return;
        }
        String earlier = "earlier run " + resumeFrom.runId() + " left it in phase " + resumeFrom.phase().wire();
        bootBefore = facts.annotation(CrifreshAnnotations.BOOT_ID);
        if (resumeFrom.phaseUnreadable() || (resumeFrom.phase() == Phase.REBOOTING && bootBefore == null)) {
            failUntellable(facts);
            return;
        }
        reboots = 1;
        host.rebootRequested(this);
        say("resuming: " + earlier + ", waiting for it");
        if (resumeFrom.phase() == Phase.VERIFYING || bootBefore == null) {
            awaitAttestation();
        } else {
            awaitReturn();
        }
    }

    /**
     * An earlier run's ownership that cannot tell whether its reboot happened (an unreadable phase, or
     * phase rebooting without the boot id before it): waiting for "a new boot" would accept the current
     * boot, and rebooting could reboot it twice. The node is left as it is and reported failed.
     */
    private void failUntellable(NodeFacts facts) {
        String what = resumeFrom.phaseUnreadable()
                ? "an unreadable " + CrifreshAnnotations.ROLLOUT + " value '" + facts.annotation(CrifreshAnnotations.ROLLOUT) + "'"
                : "phase rebooting without " + CrifreshAnnotations.BOOT_ID;
        finish(Outcome.FAILED, "earlier run " + resumeFrom.runId() + " left " + what + ", so whether its reboot happened cannot"
                + " be told; not rebooted, not released: check the node by hand, then remove " + CrifreshAnnotations.ROLLOUT
                + " (and uncordon it if " + CrifreshAnnotations.CORDONED + " is true) and rerun");
    }

    // ---- gates before the node is taken down ------------------------------------------------------

    private void gate(NodeFacts facts) {
        state = State.GATED;
        host.gates().beforeTakeDown(facts, host.clusterView(), () -> state != State.GATED || host.stopping(), this::say)
                .onComplete(ar -> {
                    if (state != State.GATED) {
                        return;
                    }
                    if (host.stopping()) {
                        finish(Outcome.NOT_ATTEMPTED, "not rebooted: the rollout stopped before its turn; not touched");
                    } else if (ar.failed()) {
                        finish(Outcome.FAILED, "not rebooted: its gates could not be checked: " + ErrorText.message(ar.cause()));
                    } else if (ar.result().pass()) {
                        own();
                    } else {
                        timedOut = ar.result().timedOut();
                        finish(timedOut ? Outcome.NOT_ATTEMPTED : Outcome.FAILED, ar.result().detail());
                    }
                });
    }

    // ---- own + cordon ------------------------------------------------------------------------------

    private void drain() {
        state = State.DRAINING;
        event(EventReason.DRAINING, "evicting its pods through the Eviction API");
        drain.start();
    }

    private void own() {
        state = State.OWNING;
        busy = true;
        String runId = host.settings().runId();
        String ours = new Ownership(runId, Phase.DRAINING).toString();
        GuardedPatch.claim(host, name, node -> {
            if (node == null) {
                return new GuardedPatch.Refuse("the node was deleted");
            }
            NodeFacts f = NodeFacts.of(node);
            Ownership owner = Decisions.leftover(f);
            if (owner != null && owner.runId().equals(runId) && owner.phase() == Phase.DRAINING) {
                return new GuardedPatch.Skip(); // an earlier attempt landed although its answer was lost
            }
            if (owner != null) {
                return new GuardedPatch.Refuse("it is now owned by '" + owner + "'");
            }
            return new GuardedPatch.Patch(NodePatches.claim(node, ours, !f.unschedulable()));
        }).onComplete(ar -> {
            busy = false;
            if (state != State.OWNING) {
                return;
            }
            if (ar.succeeded()) {
                cordonedByUs = "true".equals(NodeFacts.of(ar.result()).annotation(CrifreshAnnotations.CORDONED));
                say(cordonedByUs ? "cordoned" : "already cordoned by someone else; it stays cordoned");
                event(EventReason.CORDONED, cordonedByUs ? "cordoned for the containerd config rollout"
                        : "already cordoned by someone else; it stays cordoned");
                drain();
            } else if (ar.cause() instanceof GuardedPatch.Fenced) {
                // the lost Lease ends the run
            } else if (ar.cause() instanceof GuardedPatch.Refused refused) {
                finish(Outcome.FAILED, "not cordoned: " + refused.getMessage() + "; the node was not touched");
            } else {
                failRollingBack("could not cordon: " + ErrorText.message(ar.cause()));
            }
        });
    }

    // ---- reboot ------------------------------------------------------------------------------------

    /** The drain ended: recorded once per drain (the last-moment check may re-check {@link #reboot()} many times). */
    private void drained() {
        event(EventReason.DRAINED, "every pod to evict is gone");
        reboot();
    }

    private void reboot() {
        if (host.stopping()) {
            String why = reboots == 0 ? "not rebooted: the rollout stopped before its reboot; released"
                    : "still stale after its reboot; not rebooted again because the rollout stopped";
            if (reboots == 0) {
                release(Outcome.NOT_ATTEMPTED, why);
            } else {
                finish(Outcome.FAILED, why + "; left cordoned with " + CrifreshAnnotations.ROLLOUT);
            }
            return;
        }
        if (!host.fence().mayWrite()) {
            afterOutage(this::reboot); // fenced: a lost Lease ends the run
            return;
        }
        state = State.REBOOTING;
        busy = true;
        checkedInLapse = host.fence().lapses();
        Future<Node> node = host.retry().call(() -> host.nodes().get(name));
        Future<java.util.List<Node>> all = host.freshNodeList();
        Future.all(node, all).onComplete(ar -> {
            busy = false;
            if (state != State.REBOOTING) {
                return;
            }
            if (ar.failed()) {
                failRollingBack("not rebooted: could not read the nodes again right before its reboot: " + ErrorText.message(ar.cause()));
                return;
            }
            NodeFacts fresh = node.result() == null ? null : NodeFacts.of(node.result());
            LastMomentCheck.Verdict verdict = LastMomentCheck.check(host.settings().runId(), rebootingRecorded, startedAs, fresh,
                    all.result().stream().map(NodeFacts::of).toList(), host.inFlight(), host.budget());
            if (verdict instanceof LastMomentCheck.Go go) {
                recordRebooting(go, node.result());
            } else if (verdict instanceof LastMomentCheck.Wait wait) {
                waitBeforeReboot(wait.why());
            } else if (verdict instanceof LastMomentCheck.RollBack back) {
                failRollingBack("not rebooted: " + back.why());
            } else if (verdict instanceof LastMomentCheck.HandsOff off) {
                finish(Outcome.FAILED, "not rebooted: " + off.why() + "; the node was not touched");
            }
        });
    }

    /** The last-moment check said "not now": check again shortly, for at most {@code --reboot-timeout}. */
    private void waitBeforeReboot(String why) {
        long now = System.nanoTime();
        Duration limit = host.settings().rebootTimeout();
        if (waitingSince < 0) {
            waitingSince = now;
            say("drained, but not rebooted yet: " + why);
        } else if (now - waitingSince > limit.toNanos()) {
            failRollingBack("not rebooted: " + why + " for " + seconds(limit));
            return;
        }
        long every = Math.max(20, Math.min(1000, limit.toMillis() / 20));
        timer = host.vertx().setTimer(every, id -> {
            timer = -1;
            if (state == State.REBOOTING && !busy()) {
                reboot();
            }
        });
    }

    /**
     * Records phase rebooting and the boot id of the fresh read, guarded by that read's resource version (a
     * 409 re-reads and re-checks everything), then calls the reboot driver if the Lease is still held.
     */
    private void recordRebooting(LastMomentCheck.Go go, Node fresh) {
        waitingSince = -1;
        if (!host.fence().mayWrite()) {
            afterOutage(this::reboot);
            return;
        }
        String ownership = new Ownership(host.settings().runId(), Phase.REBOOTING).toString();
        busy = true;
        String patch = NodePatches.phase(fresh, ownership, go.bootId());
        host.retry().call(() -> host.nodes().jsonPatch(name, patch))
                .onComplete(ar -> {
                    busy = false;
                    if (state != State.REBOOTING) {
                        return;
                    }
                    if (ar.failed() && GuardedPatch.refusedGuard(ar.cause()) && conflictAgain(go.resourceVersion())) {
                        reboot(); // the node changed in between: read and check everything again
                    } else if (ar.failed()) {
                        failRollingBack("could not record phase rebooting: " + ErrorText.message(ar.cause()));
                    } else {
                        bootBefore = go.bootId();
                        rebootingRecorded = true;
                        callDriver(ar.result() == null ? fresh : ar.result());
                    }
                });
    }

    /** Whether a refused phase rebooting patch is tried again: always when the node changed, else a few times. */
    private boolean conflictAgain(String version) {
        rebootConflicts = version != null && version.equals(rebootConflictVersion) ? rebootConflicts + 1 : 0;
        rebootConflictVersion = version;
        return rebootConflicts < GuardedPatch.UNCHANGED_CONFLICTS;
    }

    private void callDriver(Node node) {
        if (!host.fence().mayWrite() || host.fence().lapses() != checkedInLapse) {
            // fenced: phase rebooting stays with the boot id; the next run waits for a new boot or fails it. After an
            // allowed API outage the last-moment check is stale: read and check everything again.
            afterOutage(this::reboot);
            return;
        }
        if (host.stopping()) {
            release(Outcome.NOT_ATTEMPTED, "not rebooted: the rollout stopped before its reboot; released");
            return;
        }
        NodeFacts cached = host.facts(name);
        if (cached != null && cached.attestation() != null) {
            attestationsBefore.add(cached.attestation().message());
        }
        NodeFacts sent = NodeFacts.of(node);
        if (sent.attestation() != null) {
            attestationsBefore.add(sent.attestation().message());
        }
        busy = true;
        // the node's alerts are silenced before the Lease is read for its reboot (never fails; see RunSilences)
        host.silence(name).compose(v -> host.fence().confirm()).onComplete(confirmed -> {
            busy = false;
            if (state != State.REBOOTING) {
                return;
            }
            if ((confirmed.failed() && confirmed.cause() instanceof GuardedPatch.Fenced) || host.fence().lapses() != checkedInLapse) {
                // a Lease taken by force ends the run (phase rebooting stays for the next run); a hold that lapsed and
                // came back during the read: check everything again
                afterOutage(this::reboot);
                return;
            }
            if (confirmed.failed()) {
                failRollingBack("not rebooted: could not read the rollout Lease right before its reboot: "
                        + ErrorText.message(confirmed.cause()));
                return;
            }
            requestReboot(node);
        });
    }

    /** The reboot request itself: the Lease was read right before and still names this run. */
    private void requestReboot(Node node) {
        rebootingRecorded = false;
        busy = true;
        host.vertx().<Void>executeBlocking(() -> {
            host.driver().reboot(node);
            return null;
        }, false).onComplete(ar -> {
            busy = false;
            if (state != State.REBOOTING) {
                return;
            }
            if (ar.failed()) {
                failMayHaveRebooted(ErrorText.message(ar.cause()));
                return;
            }
            reboots++;
            if (reboots == 1) {
                host.rebootRequested(this);
            }
            say(reboots == 1 ? "reboot requested" : "reboot requested again (" + reboots + ")");
            event(EventReason.REBOOT_REQUESTED, "reboot requested so that containerd loads the current CRI config"
                    + (reboots > 1 ? " (reboot " + reboots + ")" : "") + "; boot id before: " + bootBefore);
            awaitReturn();
        });
    }

    /**
     * The driver was invoked and failed: the request may still have reached the node (talosctl killed at
     * its timeout after delivering it, say). Treated as rebooted: the node keeps its cordon and phase
     * rebooting with the boot id before, so nothing uncordons a node that may be going down, and a rerun
     * waits for a new boot id instead of rebooting it again.
     */
    private void failMayHaveRebooted(String error) {
        reboots++;
        if (reboots == 1) {
            host.rebootRequested(this);
        }
        finish(Outcome.FAILED, "reboot request failed: " + error + "; the reboot may have happened anyway, so the node was left"
                + " cordoned with " + CrifreshAnnotations.ROLLOUT + " in phase rebooting: a rerun resumes from the annotations"
                + " and waits for a new boot id (if the node did not reboot, reboot it by hand or remove "
                + CrifreshAnnotations.ROLLOUT + ")");
    }

    // ---- wait for the node to return -----------------------------------------------------------------

    private void awaitReturn() {
        state = State.RETURNING;
        Duration timeout = host.settings().rebootTimeout();
        armTimer(timeout, () -> finish(Outcome.FAILED, "did not return Ready with a new boot id within " + seconds(timeout)
                + "; left cordoned with " + CrifreshAnnotations.ROLLOUT + " so a rerun waits for it"));
        checkReturned();
    }

    private void checkReturned() {
        NodeFacts facts = host.facts(name);
        if (facts == null) {
            finish(Outcome.FAILED, "the node was deleted while rebooting");
            return;
        }
        boolean newBoot = facts.bootId() != null && !facts.bootId().equals(bootBefore);
        if (!newBoot || !facts.ready()) {
            return;
        }
        cancelTimer();
        say("back with a new boot id, waiting for a fresh attestation");
        event(EventReason.RETURNED, "Ready with a new boot id " + facts.bootId() + ", waiting for a fresh attestation");
        String ownership = new Ownership(host.settings().runId(), Phase.VERIFYING).toString();
        busy = true;
        state = State.ATTESTING;
        guarded(node -> ownedHere(node) == null
                ? new GuardedPatch.Refuse(notOursAnyMore(node))
                : new GuardedPatch.Patch(NodePatches.phase(node, ownership, null)))
                .onComplete(ar -> {
                    busy = false;
                    if (state != State.ATTESTING) {
                        return;
                    }
                    if (ar.failed() && ar.cause() instanceof GuardedPatch.Refused refused) {
                        finish(Outcome.FAILED, "rebooted, but " + refused.getMessage() + "; the node was not touched further");
                    } else if (!(ar.failed() && ar.cause() instanceof GuardedPatch.Fenced)) {
                        awaitAttestation(); // phase verifying is a hint for a rerun; without it the rerun waits for the boot id
                    }
                });
    }

    // ---- wait for a fresh attestation from the new boot ---------------------------------------------

    private void awaitAttestation() {
        state = State.ATTESTING;
        Duration timeout = host.settings().attestTimeout();
        armTimer(timeout, () -> finish(Outcome.FAILED, "no fresh attestation from the new boot within " + seconds(timeout)
                + (lastWaitDetail == null ? "" : " (last: " + lastWaitDetail + ")")
                + "; left cordoned with " + CrifreshAnnotations.ROLLOUT + " so a rerun waits for it"));
        checkAttestation();
    }

    private void checkAttestation() {
        if (host.facts(name) == null) {
            finish(Outcome.FAILED, "the node was deleted while waiting for its attestation");
            return;
        }
        Classification c = host.classifyNow(name);
        String notNew = notFromThisReboot(host.facts(name));
        if (c.verdict() == dev.crifresh.coordinator.classify.NodeVerdict.FRESH && notNew != null) {
            lastWaitDetail = notNew;
            return;
        }
        switch (c.verdict()) {
            case FRESH -> {
                cancelTimer();
                say("fresh (" + c.reason() + ")");
                event(EventReason.FRESH, "containerd loaded the current config (" + c.reason() + ")");
                prove("rebooted" + (reboots > 1 ? " " + reboots + " times" : "") + "; " + c.detail());
            }
            case STALE -> {
                cancelTimer();
                if (reboots >= 2) {
                    finish(Outcome.FAILED, "still stale after " + reboots + " reboots (" + c.reason() + "): " + c.detail()
                            + "; left cordoned with " + CrifreshAnnotations.ROLLOUT);
                } else if (resumeFrom != null) {
                    failResumedStale(c);
                } else {
                    say("still stale after the reboot (" + c.reason() + "), rebooting once more");
                    drain();
                }
            }
            default -> lastWaitDetail = c.verdict().wire() + ", " + c.reason() + ": " + c.detail();
        }
    }

    /** The gates after its return (etcd back, pull proof); either way the node is released, never left cordoned. */
    private void prove(String rebooted) {
        state = State.PROVING;
        busy = true;
        NodeFacts facts = host.facts(name);
        host.gates().afterReturn(facts, host.clusterView(), () -> state != State.PROVING, this::say).onComplete(ar -> {
            busy = false;
            if (state != State.PROVING) {
                return;
            }
            if (ar.succeeded() && ar.result().pass()) {
                String gates = ar.result().detail();
                release(Outcome.REBOOTED, rebooted + (gates == null || gates.isEmpty() ? "" : "; " + gates));
            } else {
                String why = ar.succeeded() ? ar.result().detail() : "its gates could not be checked: " + ErrorText.message(ar.cause());
                release(Outcome.FAILED, "rebooted and attests fresh, but " + why + "; released (crifresh leaves no cordon"
                        + " behind), the rollout stops");
            }
        });
    }

    /**
     * Why the node's attestation cannot prove this run's reboot, or null when it can: it must come from a boot
     * other than the one recorded before the reboot, and must not have been seen before this run's driver call
     * (another run's attestation, or one from the cache, proves nothing about this reboot).
     */
    private String notFromThisReboot(NodeFacts facts) {
        if (facts == null) {
            return "the node is gone";
        }
        if (bootBefore != null && bootBefore.equals(facts.bootId())) {
            return "the node still reports the boot id from before the reboot";
        }
        if (facts.attestation() != null && attestationsBefore.contains(facts.attestation().message())) {
            return "the attestation is one seen before this run's reboot request";
        }
        return null;
    }

    /** A guarded patch of the node; a claim when it writes over the ownership of the earlier run this one resumed. */
    private Future<Node> guarded(java.util.function.Function<Node, GuardedPatch.Step> decide) {
        return resumeFrom != null ? GuardedPatch.claim(host, name, decide) : GuardedPatch.apply(host, name, decide);
    }

    /**
     * The run may not act now: after an allowed API outage (the Lease renewed again) {@code step} runs, unless the roll
     * moved on meanwhile; a lost Lease ends the run instead.
     */
    private void afterOutage(Runnable step) {
        State was = state;
        host.fence().whenMayWrite().onSuccess(v -> {
            if (state == was && !busy() && !finished()) {
                step.run();
            }
        });
    }

    /** The node's ownership when it is this run's (or the earlier run's this one resumed), else null. */
    private Ownership ownedHere(Node node) {
        if (node == null) {
            return null;
        }
        Ownership owner = Decisions.leftover(NodeFacts.of(node));
        if (owner == null) {
            return null;
        }
        boolean ours = owner.runId().equals(host.settings().runId())
                || (resumeFrom != null && owner.runId().equals(resumeFrom.runId()));
        return ours ? owner : null;
    }

    private String notOursAnyMore(Node node) {
        if (node == null) {
            return "the node was deleted";
        }
        String value = NodeFacts.of(node).annotation(CrifreshAnnotations.ROLLOUT);
        return "its " + CrifreshAnnotations.ROLLOUT + " is now " + (value == null ? "gone" : "'" + value + "'");
    }

    /**
     * A resumed node proved stale after the earlier run's reboot. It was started outside the budget and
     * the control-plane rule, so it is not rebooted again here: it fails, stays cordoned, and its phase
     * goes back to draining — a rerun then releases it and reboots it within the budget and the rule.
     */
    private void failResumedStale(Classification c) {
        state = State.RELEASING;
        String why = "still stale after the earlier run's reboot (" + c.reason() + "): " + c.detail()
                + "; not rebooted again by this run (a resumed node skipped the budget and control-plane checks)";
        String ownership = new Ownership(host.settings().runId(), Phase.DRAINING).toString();
        busy = true;
        guarded(node -> ownedHere(node) == null
                ? new GuardedPatch.Refuse(notOursAnyMore(node))
                : new GuardedPatch.Patch(NodePatches.phase(node, ownership, null)))
                .onComplete(ar -> {
            busy = false;
            if (state != State.RELEASING || (ar.failed() && ar.cause() instanceof GuardedPatch.Fenced)) {
                return;
            }
            finish(Outcome.FAILED, why + (ar.succeeded()
                    ? "; left cordoned in phase draining, so a rerun reboots it within the budget"
                    : "; left cordoned with " + CrifreshAnnotations.ROLLOUT + " (could not set phase draining: "
                            + ErrorText.message(ar.cause()) + ")"));
        });
    }

    // ---- node updates --------------------------------------------------------------------------------

    /** The informer saw a change of this node. */
    void onUpdate() {
        if (busy()) {
            return;
        }
        if (state == State.RETURNING) {
            checkReturned();
        } else if (state == State.ATTESTING) {
            checkAttestation();
        }
    }

    /**
     * The informer saw the node disappear: the node fails (nothing is patched: it is gone), which stops the run
     * like any failure. While a call of the current step is in flight, its answer (a refused patch, no node to
     * return) ends the node instead.
     */
    void onDeleted() {
        if (!finished() && !busy() && state != State.QUEUED) {
            finish(Outcome.FAILED, "the node was deleted during its rollout (" + step() + ")");
        }
    }

    /** The step the roll is in, in words. */
    private String step() {
        return switch (state) {
            case GATED -> "while waiting for its gates";
            case OWNING -> "while cordoning it";
            case DRAINING -> "while draining";
            case REBOOTING -> "right before its reboot";
            case RETURNING -> "while waiting for it to return from its reboot";
            case ATTESTING -> "while waiting for its attestation";
            case PROVING -> "while checking it after its reboot";
            case RELEASING -> "while releasing it";
            case QUEUED, DONE, ABANDONED -> state.name().toLowerCase();
        };
    }

    // ---- release, fail, abandon ------------------------------------------------------------------------

    private void release(Outcome result, String why) {
        state = State.RELEASING;
        cancelTimer();
        releasing = result;
        releasingWhy = why;
        boolean[] uncordoned = {false};
        busy = true;
        guarded(node -> {
            if (node == null) {
                return new GuardedPatch.Refuse("the node was deleted");
            }
            NodeFacts f = NodeFacts.of(node);
            if (f.annotation(CrifreshAnnotations.ROLLOUT) == null) {
                return new GuardedPatch.Skip(); // an earlier attempt landed although its answer was lost
            }
            if (ownedHere(node) == null) {
                return new GuardedPatch.Refuse(notOursAnyMore(node));
            }
            uncordoned[0] = cordonedByUs || "true".equals(f.annotation(CrifreshAnnotations.CORDONED));
            return new GuardedPatch.Patch(NodePatches.release(node, uncordoned[0]));
        }).onComplete(ar -> {
            busy = false;
            if (state != State.RELEASING || (ar.failed() && ar.cause() instanceof GuardedPatch.Fenced)) {
                return;
            }
            if (ar.succeeded()) {
                if (uncordoned[0]) {
                    say("uncordoned");
                    event(EventReason.UNCORDONED, "uncordoned: crifresh had cordoned it");
                }
                finish(result, why);
                return;
            }
            String error = ar.cause() instanceof GuardedPatch.Refused refused ? refused.getMessage() : ErrorText.message(ar.cause());
            if (result == Outcome.REBOOTED) {
                leftCordoned = true;
                finish(Outcome.REBOOTED, why + "; but NOT uncordoned: could not release it (" + error + "): uncordon it and remove "
                        + CrifreshAnnotations.ROLLOUT + " by hand, or rerun");
            } else {
                finish(Outcome.FAILED, why + "; then could not release it (uncordon, drop the crifresh annotations): " + error);
            }
        });
    }

    /** Whether crifresh cordoned the node: this run did, or the node carries {@code crifresh.dev/cordoned=true}. */
    private boolean crifreshCordoned() {
        NodeFacts facts = host.facts(name);
        return cordonedByUs || (facts != null && "true".equals(facts.annotation(CrifreshAnnotations.CORDONED)));
    }

    /** A failure before the reboot request: undo the cordon and ownership, then fail. */
    private void failRollingBack(String why) {
        if (reboots > 0) {
            finish(Outcome.FAILED, why + "; left cordoned with " + CrifreshAnnotations.ROLLOUT);
            return;
        }
        host.progress(this, ProgressListener.Level.ERROR, "failed: " + why);
        state = State.RELEASING;
        cancelTimer();
        release(Outcome.FAILED, why + (crifreshCordoned() ? " (uncordoned again)" : ""));
    }

    /** The run is interrupted: stop here and leave the node as it is, for a rerun to resume. */
    void abandon(String why) {
        if (finished()) {
            return;
        }
        cancelTimer();
        State was = state;
        state = State.ABANDONED;
        if (was == State.RELEASING && releasing == Outcome.REBOOTED) {
            outcome = Outcome.REBOOTED;
            leftCordoned = true;
            detail = releasingWhy + "; but NOT uncordoned: " + why + "; a rerun releases it";
            return;
        }
        outcome = was == State.QUEUED ? Outcome.NOT_ATTEMPTED : Outcome.FAILED;
        detail = was == State.QUEUED ? why : why + " while " + was.name().toLowerCase() + "; a rerun resumes from "
                + CrifreshAnnotations.ROLLOUT;
    }

    private void finish(Outcome result, String why) {
        if (finished()) {
            return;
        }
        cancelTimer();
        state = State.DONE;
        outcome = result;
        detail = why;
        if (result == Outcome.FAILED) {
            host.progress(this, ProgressListener.Level.ERROR, "failed: " + why);
            event(EventReason.FAILED, why);
        }
        host.finished(this);
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private void armTimer(Duration timeout, Runnable onTimeout) {
        cancelTimer();
        State armedIn = state;
        timer = host.vertx().setTimer(Math.max(1, timeout.toMillis()), id -> {
            timer = -1;
            if (state == armedIn) {
                onTimeout.run();
            }
        });
    }

    private void cancelTimer() {
        if (timer >= 0) {
            host.vertx().cancelTimer(timer);
            timer = -1;
        }
        drain.cancelTimer();
    }

    /**
     * Whether a call of the current step is in flight: its answer decides what comes next, so node updates and a
     * deletion are left to it. The drain's own calls do not count: it drops their answers once it ended or was
     * stopped. (Counting them made a roll deaf while a drain call was late — its pod watch still starting after a
     * list had found the node empty: the node's return and attestation were ignored until the wait ran out.)
     */
    private boolean busy() {
        return busy;
    }

    private void say(String text) {
        host.progress(this, text);
    }

    private void event(EventReason reason, String message) {
        host.event(name, reason, message);
    }

    static String seconds(Duration d) {
        return dev.crifresh.common.text.DurationText.format(d);
    }
}
