package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.Action;
import dev.crifresh.coordinator.NodeAction;
import dev.crifresh.coordinator.CoordinatorSettings;
import dev.crifresh.coordinator.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.gate.GateVerdict;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.kube.EventOps;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.NodePatches;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.silence.SilenceOutcome;
import dev.crifresh.coordinator.silence.Silences;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One rollout run: the state machine. Everything runs on one Vert.x context, driven by Node informer
 * events and timers; blocking Kubernetes calls and the reboot driver run on worker threads.
 * <ol>
 *   <li><b>Lock</b> ({@link LeaseKeeper}): take the Lease {@code crifresh-rollout} (retrying until {@code --lock-timeout}, else
 *       exit 4) and renew it every third of its duration. The hold fences every side effect; when it ends,
 *       the run ends at once (result lease-lost, exit 4), leaving its nodes for the next run. The Lease is
 *       watched: deleted or given another holder (taken by force), the hold ends at once; it is also read again
 *       right before every driver call and claim. With {@code --api-outage-budget} a hold that runs out is
 *       suspended, not ended: nothing is sent until a renewal gets through again.</li>
 *   <li><b>Observe</b>: start a Node informer on the selected nodes (with a node selector, a second one
 *       on every node, for the safety checks).</li>
 *   <li><b>Classify</b> every node (signature checks on worker threads).</li>
 *   <li><b>Wait for config</b> ({@link PendingWait}): while a node is config-pending, re-classify it on every update; when
 *       {@code --config-timeout} passes first, stop before any reboot (exit 3).</li>
 *   <li><b>Decide</b>: fresh → skip; config-pending that turned fresh → became-fresh; stale and unknown →
 *       reboot (action none: wait for them to turn fresh, bounded by {@code --attest-timeout}). Nodes an
 *       earlier run left owned ({@code crifresh.dev/rollout}) in phase rebooting or verifying are resumed
 *       at once, outside the budget (their reboot may be under way): only waited for, never rebooted again
 *       by this run. Nodes it left in phase draining are released (uncordoned if crifresh cordoned them)
 *       and then decided and scheduled like any other node, within the budget and the control-plane
 *       rule.</li>
 *   <li><b>Check</b> ({@link DriverCheck}): the reboot driver checks every node it will reboot (e.g. a unique InternalIP)
 *       before any node is touched; a node whose reboot takes the API server away ({@link ApiAway}) is refused
 *       then, unless {@code --api-outage-budget} allows the outage.</li>
 *   <li><b>Where evicted pods land</b> ({@link StaleNodeTaints}, {@code EvictionPlacement}): taint every stale
 *       node to be rebooted ({@code crifresh.dev/stale}); with no fresh schedulable node, the stale worker with
 *       the fewest pods goes first and alone (the seed). A rebooted node's taint comes off before the next
 *       drain; every node's when the run ends.</li>
 *   <li><b>Roll</b> ({@link RollScheduler}, {@link NodeRoll}): workers first — already-unavailable ones first — as many at once
 *       as {@code --max-unavailable} allows, counting nodes NotReady or cordoned by others; then control
 *       planes one at a time, each only while every other control plane is Ready. Both checks look at
 *       every node of the cluster, also those a {@code --node-selector} leaves out.</li>
 *   <li><b>Stop at the first failure</b>: nothing new starts, nodes in progress that were not rebooted
 *       yet are released, rebooting ones are waited for; the rest are not-attempted. When nothing can
 *       start for {@code --reboot-timeout} (budget used up by others), the run times out (exit 3).</li>
 *   <li><b>Joined nodes</b> ({@link JoinedNodes}): a node that joins while the run is under way is waited
 *       for until it attests (bounded by {@code --attest-timeout}), then decided and handled like the others;
 *       the run ends only after a final read of the nodes finds every one fresh or reported.</li>
 *   <li><b>Report</b>, remove crifresh's taints and release the Lease. Events on each Node
 *       ({@link RolloutEvents}) record the steps.</li>
 * </ol>
 */
public final class Rollout implements RollHost, NodeOps.NodeEvents {
    /** How long the end of a run waits for the answers to the Events it sent. */
    static final Duration EVENTS_SETTLE = Duration.ofSeconds(5);

    private enum Stage { LOCKING, OBSERVING, CONFIG_WAIT, DECIDING, ROLLING, WAITING, DONE }

    private final Vertx vertx;
    private final Context context;
    private final NodeOps nodeOps;
    private final PodOps podOps;
    private final LeaseKeeper lease;
    private final NodeClassifier classifier;
    private final ClassificationCache cache;
    private final CoordinatorSettings settings;
    private final RebootDriver driver;
    private final ProgressListener progress;
    private final Clock clock;
    private final RolloutEvents events;
    private final RunObserver observer;
    private final StaleNodeTaints taints;
    private final Promise<Report> promise = Promise.promise();
    private Gates gates;
    private final ApiRetry retry;
    private final Ticker ticker;
    private final LeaseFence fence;
    private final SharedNodeList freshNodes;
    private RunSilences silences;

    private Stage stage = Stage.LOCKING;
    /** False once the run ended: read by the fence, also on worker threads. */
    private volatile boolean open = true;
    private NodeOps.NodeWatch watch;
    /** With a node selector: an informer on every node, for the safety checks. */
    private NodeOps.NodeWatch clusterWatch;
    private long blockedTimer = -1;
    private String blockedBecause;

    private final Map<String, Node> raw = new HashMap<>();
    private final Map<String, NodeFacts> facts = new HashMap<>();
    /** With a node selector: every node of the cluster, selected or not (facts holds the selected ones' latest). */
    private final Map<String, NodeFacts> cluster = new HashMap<>();
    private final Map<String, Classification> initial = new TreeMap<>();
    private final Map<String, NodeResult> results = new HashMap<>();
    private final PendingWait configWait;
    private final PendingWait freshWait;
    private final RollScheduler rolls = new RollScheduler();
    private final List<String> rebootOrder = new ArrayList<>();
    /** With action auto: the nodes rebooted once the wait for the others is over; null when there is no such wait. */
    private List<NodeFacts> deferredReboots;
    private List<NodeFacts> deferredLeftovers = List.of();
    private int budget;
    /** Selected nodes that were fresh when the run decided: where evicted pods should land. */
    private final java.util.Set<String> freshAtDecision = new java.util.TreeSet<>();
    private EvictionPlacement placement;
    /** Taint removals after a reboot still under way: no new node starts until they are done. */
    private int untaintsPending;
    private boolean lockHeld;
    private final JoinedNodes joinedNodes;
    /** Joined nodes that settled while the run was deciding: decided once rolling starts. */
    private final List<String> joinedPending = new ArrayList<>();
    /** Joined stale nodes being tainted before their roll is queued. */
    private int joinsPending;
    private boolean inventoryReading;
    private int rollTotal;

    private StopReason stop;
    private String error;
    private String apiHost;

    public Rollout(Vertx vertx, Context context, NodeOps nodeOps, PodOps podOps, LeaseLock lease,
                   EventOps eventOps, NodeClassifier classifier, CoordinatorSettings settings, RebootDriver driver,
                   ProgressListener progress, Clock clock) {
        this.vertx = vertx;
        this.context = context;
        this.ticker = Ticker.of(vertx);
        this.lease = new LeaseKeeper(ticker, lease, settings, progress, new LeaseEvents());
        this.fence = new LeaseFence(this.lease, () -> open, ticker, settings.leaseDuration());
        this.nodeOps = new PatchEchoNodeOps(nodeOps.gated(WorkerFence.gate(fence)), this::patched);
        this.podOps = podOps.gated(WorkerFence.gate(fence));
        this.retry = new ApiRetry(ticker, fence, settings.leaseDuration());
        this.freshNodes = new SharedNodeList(() -> retry.call(() -> this.nodeOps.listAll()));
        this.classifier = classifier;
        this.cache = new ClassificationCache(classifier);
        this.settings = settings;
        this.driver = WorkerFence.driver(driver, fence);
        this.progress = progress;
        this.clock = clock;
        this.events = new RolloutEvents(eventOps.gated(WorkerFence.gate(fence.closing())), settings.runId(), raw::get, progress, clock,
                fence.closing()::mayWrite);
        this.observer = new RunObserver(progress, events);
        // The taints come off also while the run ends (after its stage is done): retried for as long as the Lease is held.
        NodeOps cleanupNodes = new PatchEchoNodeOps(nodeOps.gated(WorkerFence.gate(fence.closing())), this::patched);
        this.taints = new StaleNodeTaints(new GuardedPatch.Target(cleanupNodes, new ApiRetry(ticker, fence.closing(), settings.leaseDuration()),
                fence.closing()), settings.runId(), settings.staleTaint(), observer);
        this.configWait = new PendingWait(ticker, c -> c.verdict() != NodeVerdict.CONFIG_PENDING,
                this::configSettled, this::decide, this::configTimedOut);
        this.freshWait = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH,
                this::turnedFresh, this::freshWaitEnded, this::freshTimedOut);
        this.joinedNodes = new JoinedNodes(ticker, settings.attestTimeout(), this::joinedSettled);
        this.gates = Gates.none(vertx, context);
        this.silences = new RunSilences(Silences.none(), o -> observer.accept(new RunEvent.Silence(o)));
    }

    /** The rollout gates (blockers, etcd, pull proof); none unless set before {@link #run()}. */
    public Rollout withGates(Gates gates) {
        this.gates = gates;
        return this;
    }

    /** The host of the API server URL this run uses (to tell a reboot that takes the API server away), or null. */
    public Rollout withApiHost(String host) {
        this.apiHost = host;
        return this;
    }

    /** The Alertmanager silences for nodes while they are down (none unless set before {@link #run()}); closed at the end. */
    public Rollout withSilences(Silences silences) {
        this.silences = new RunSilences(silences, o -> observer.accept(new RunEvent.Silence(o)));
        return this;
    }

    /** Runs the rollout; call on the rollout's context. */
    public Future<Report> run() {
        lease.acquire();
        return promise.future();
    }

    /** Stops at once: nothing new starts, in-progress nodes are left as they are for a rerun to resume. */
    public void interrupt() {
        if (stage == Stage.DONE) {
            return;
        }
        stopWith(StopReason.INTERRUPTED, "interrupted");
        rolls.abandonInFlight("interrupted");
        if (stage != Stage.LOCKING) {
            finish();
        }
    }

    // ---- 1. lock (LeaseKeeper) -------------------------------------------------------------------------

    private final class LeaseEvents implements LeaseKeeper.Run {
        @Override
        public boolean done() {
            return stage == Stage.DONE;
        }

        @Override
        public boolean interrupted() {
            return stop == StopReason.INTERRUPTED;
        }

        @Override
        public void lockAcquired() {
            lockHeld = true;
            observe();
        }

        @Override
        public void lockAbandoned() {
            finish();
        }

        @Override
        public void lockNotAcquired(String why) {
            lockFailed(why);
        }

        /**
         * No side effect at all from here on: nodes in progress are abandoned as they are (owned, cordoned) for
         * the next run to resume, and the run ends now — even while a call hangs.
         */
        @Override
        public void lockLost(String why) {
            stopWith(StopReason.LOCK_LOST, why);
            rolls.abandonInFlight("the rollout lock was lost");
            finish();
        }
    }

    private void lockFailed(String why) {
        stopWith(StopReason.LOCK_NOT_ACQUIRED, why);
        nodeOps.list().compose(list -> {
            list.forEach(this::remember);
            return BulkClassify.classifyAll(context, classifier, list.stream().map(NodeFacts::of).toList(), clock.instant());
        }).onComplete(ar -> {
            if (ar.succeeded()) {
                initial.putAll(ar.result());
            }
            finish();
        });
    }

    // ---- 2. observe + 3. classify ---------------------------------------------------------------------------

    private void observe() {
        observe(1, ticker.nanoTime(), new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5)));
    }

    /** Starts the informers; a transient failure (the API unreachable for a while) is retried while the Lease is held. */
    private void observe(int attempt, long start, Backoff backoff) {
        stage = Stage.OBSERVING;
        watchCluster().compose(v -> nodeOps.watch(this)).compose(w -> {
            watch = w;
            if (stage == Stage.DONE) {
                w.close();
                return Future.failedFuture("interrupted");
            }
            List<Node> snapshot = w.snapshot();
            snapshot.forEach(this::remember);
            Instant now = clock.instant();
            return BulkClassify.classifyAll(context, classifier, snapshot.stream().map(NodeFacts::of).toList(), now)
                    .onSuccess(map -> map.values().forEach(c -> cache.remember(c, now)));
        }).onComplete(ar -> {
            if (stage == Stage.DONE) {
                return;
            }
            if (ar.failed() && retry.again(ar.cause(), attempt, start)) {
                closeWatch();
                watch = null;
                clusterWatch = null;
                observer.accept(new RunEvent.WatchRetry(ErrorText.message(ar.cause())));
                ticker.setTimer(Duration.ofMillis(backoff.next()), () -> {
                    if (stage == Stage.OBSERVING) {
                        observe(attempt + 1, start, backoff);
                    }
                });
                return;
            }
            if (ar.failed()) {
                stopWith(StopReason.NODE_FAILED, "cannot watch nodes: " + ErrorText.message(ar.cause()));
                finish();
                return;
            }
            initial.putAll(ar.result());
            observer.accept(new RunEvent.Classified(List.copyOf(initial.values())));
            if (stopping()) {
                finish();
            } else {
                waitForConfig();
            }
        });
    }

    /**
     * With a node selector, nodes it leaves out still count for the safety checks: every other control
     * plane must be Ready, and unavailable nodes use up the budget. Without one, the selected view is the
     * whole cluster.
     */
    private Future<Void> watchCluster() {
        if (settings.nodeSelector() == null) {
            return Future.succeededFuture();
        }
        return nodeOps.watchAll(new NodeOps.NodeEvents() {
            @Override
            public void upsert(Node node) {
                if (stage == Stage.DONE) {
                    return;
                }
                NodeFacts before = cluster.put(node.getMetadata().getName(), NodeFacts.of(node));
                NodeFacts after = cluster.get(node.getMetadata().getName());
                if (stage == Stage.ROLLING && (before == null || before.ready() != after.ready()
                        || before.unschedulable() != after.unschedulable())) {
                    pump();
                }
            }

            @Override
            public void deleted(String name) {
                if (stage != Stage.DONE && cluster.remove(name) != null && stage == Stage.ROLLING) {
                    pump();
                }
            }
        }).map(w -> {
            clusterWatch = w;
            if (stage == Stage.DONE) {
                w.close();
            } else {
                w.snapshot().forEach(n -> cluster.put(n.getMetadata().getName(), NodeFacts.of(n)));
            }
            return null;
        });
    }

    /** What the safety checks look at: every node of the cluster, the selected ones in their latest state. */
    private List<NodeFacts> safetyView() {
        Map<String, NodeFacts> all = new TreeMap<>(cluster);
        all.putAll(facts);
        return new ArrayList<>(all.values());
    }

    private void remember(Node node) {
        raw.put(node.getMetadata().getName(), node);
        facts.put(node.getMetadata().getName(), NodeFacts.of(node));
    }

    // ---- 4. wait for config-pending nodes ------------------------------------------------------------------

    private void waitForConfig() {
        stage = Stage.CONFIG_WAIT;
        for (Classification c : initial.values()) {
            if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
                configWait.add(c.name());
            }
        }
        if (configWait.isEmpty()) {
            decide();
            return;
        }
        Duration timeout = settings.configTimeout();
        observer.accept(new RunEvent.ConfigWaitStarted(timeout, classifier.registry(), List.copyOf(configWait.names())));
        configWait.start(timeout);
        // Nodes may have changed while they were classified: check the pending ones again, off the loop.
        classifyLatest(configWait.snapshot()).onSuccess(latest -> configWait.checkAll(latest.values()));
    }

    private void configSettled(Classification c) {
        observer.accept(new RunEvent.ConfigSettled(c));
    }

    private void configTimedOut() {
        String names = String.join(", ", configWait.names());
        stopWith(StopReason.TIMED_OUT, configWait.size() + " node(s) did not hold the desired credential for "
                + classifier.registry() + " within " + NodeRoll.seconds(settings.configTimeout()) + ": " + names
                + "; nothing was rebooted");
        for (String name : configWait.names()) {
            decided(name, Decision.WAIT);
            Classification c = facts.containsKey(name) ? classifyNow(name) : initial.get(name);
            ended(name, Outcome.FAILED, "config did not hold the desired credential within " + NodeRoll.seconds(settings.configTimeout())
                    + ": " + c.detail());
        }
        finish();
    }

    // ---- 5. decide + 6. check ------------------------------------------------------------------------------

    private void decide() {
        if (stopping()) {
            finish();
            return;
        }
        stage = Stage.DECIDING;
        classifyLatest(List.copyOf(initial.keySet())).onComplete(ar -> {
            if (stage != Stage.DECIDING) {
                return;
            }
            if (ar.failed()) {
                stopWith(StopReason.NODE_FAILED, "cannot classify the nodes: " + ErrorText.message(ar.cause()));
                finish();
                return;
            }
            decide(ar.result());
        });
    }

    private void decide(Map<String, Classification> latest) {
        RolloutPlan plan = RolloutPlan.decide(settings.action(), initial.values(), latest, facts::get);
        freshAtDecision.addAll(plan.fresh());
        for (RolloutPlan.NodePlan n : plan.nodes()) {
            if (n.decision() != null) {
                decided(n.name(), n.decision());
            }
            if (n.outcome() != null) {
                ended(n.name(), n.outcome(), n.detail());
            } else if (n.detail() != null) {
                noted(n.name(), n.detail());
            }
            if (n.announced()) {
                announceAction(n.name(), n.action());
            }
        }
        List<NodeFacts> ordered = plan.reboots();
        List<NodeFacts> waited = plan.waits();
        List<NodeFacts> leftovers = plan.leftovers();
        gates.start(plan.controlPlanes()).compose(v -> gates.proveSkipped(plan.freshSkipped(facts::get))).onComplete(ar -> {
            if (stage != Stage.DECIDING) {
                return;
            }
            if (ar.failed() || ar.result().values().stream().anyMatch(v -> !v.pass())) {
                failSkippedProofs(ar.succeeded() ? ar.result() : Map.of(), ar.cause());
                return;
            }
            if (settings.action() == Action.NONE) {
                releaseLeftovers(leftovers).onComplete(released -> waitForFresh(waited));
            } else if (settings.action() == Action.AUTO && !waited.isEmpty()) {
                // auto: first the nodes that restart containerd themselves (no side effect), then the reboots.
                deferredReboots = new ArrayList<>(ordered);
                deferredLeftovers = plan.deferredLeftovers();
                releaseLeftovers(plan.waitedLeftovers()).onComplete(released -> waitForFresh(waited));
            } else {
                checkDriver(ordered, leftovers);
            }
        });
    }

    /** A node skipped as fresh failed its read-only pull proof: stop before any reboot (fail toward not disrupting). */
    private void failSkippedProofs(Map<String, GateVerdict> proofs, Throwable cause) {
        List<String> failed = new ArrayList<>();
        proofs.forEach((name, verdict) -> {
            if (!verdict.pass()) {
                failed.add(name);
                ended(name, Outcome.FAILED, "skipped as fresh, but " + verdict.detail());
            }
        });
        stopWith(StopReason.NODE_FAILED, failed.isEmpty() ? "the pull proof could not run: " + ErrorText.message(cause)
                : String.join(", ", failed) + " attest fresh but failed the pull proof (" + proofs.get(failed.get(0)).detail()
                        + "); nothing was rebooted");
        finish();
    }

    private void checkDriver(List<NodeFacts> ordered, List<NodeFacts> leftovers) {
        if (refusedApiAway(ordered)) {
            return;
        }
        List<Node> selected = initial.keySet().stream().map(raw::get).filter(n -> n != null).toList();
        Map<String, Node> toCheck = new LinkedHashMap<>();
        for (NodeFacts f : ordered) {
            Ownership o = Decisions.leftover(f);
            if (o == null || !o.phase().mayHaveRebooted()) {
                toCheck.put(f.name(), raw.get(f.name()));
            }
        }
        DriverCheck.problems(context, driver, toCheck, selected).onComplete(ar -> {
            if (stage == Stage.DONE) {
                return;
            }
            Map<String, String> problems = ar.succeeded() ? ar.result() : Map.of("*", ErrorText.message(ar.cause()));
            if (!problems.isEmpty()) {
                problems.forEach((name, why) -> {
                    if (initial.containsKey(name)) {
                        ended(name, Outcome.FAILED, "cannot be rebooted: " + why);
                    }
                });
                stopWith(StopReason.NODE_FAILED, "the reboot driver cannot reboot " + String.join(", ", problems.keySet())
                        + ": " + problems.values().iterator().next() + "; no node was touched");
                finish();
                return;
            }
            releaseLeftovers(leftovers).onComplete(released -> {
                if (stage == Stage.DONE) {
                    return;
                }
                if (released.failed()) {
                    stopWith(StopReason.NODE_FAILED, "could not release an earlier run's leftover nodes: "
                            + ErrorText.message(released.cause()));
                    finish();
                    return;
                }
                placeEvictedPods(ordered).onComplete(placed -> {
                    if (stage != Stage.DONE) {
                        roll(placed.result());
                    }
                });
            });
        });
    }

    /**
     * Pre-flight: a node whose reboot takes the API server away ({@link ApiAway}) is refused before any node is
     * touched, unless {@code --api-outage-budget} allows the outage (then the run waits it out with no side effect).
     * Nodes an earlier run may already have rebooted are only waited for and not checked.
     */
    private boolean refusedApiAway(List<NodeFacts> ordered) {
        Map<String, String> refused = new LinkedHashMap<>();
        for (NodeFacts f : ordered) {
            Ownership o = Decisions.leftover(f);
            String why = o != null && o.phase().mayHaveRebooted() ? null : ApiAway.why(f, safetyView(), apiHost);
            if (why == null) {
                continue;
            }
            if (settings.apiOutageBudget().isZero()) {
                refused.put(f.name(), ApiAway.refusal(why));
            } else {
                observer.accept(new RunEvent.ApiOutageAllowed(f.name(), ApiAway.allowed(why, settings.apiOutageBudget())));
            }
        }
        if (refused.isEmpty()) {
            return false;
        }
        refused.forEach((name, why) -> ended(name, Outcome.FAILED, "not rebooted: " + why));
        stopWith(StopReason.NODE_FAILED, "refused to reboot " + String.join(", ", refused.keySet()) + ": "
                + refused.values().iterator().next() + "; no node was touched");
        finish();
        return true;
    }

    // ---- 7a. where evicted pods land (StaleNodeTaints, EvictionPlacement) -------------------------------------

    /**
     * Before the first drain: taints every stale node this run will reboot (not those an earlier run may
     * already have rebooted), drops leftover crifresh taints of an earlier run from the other nodes, and —
     * when no fresh node can take evicted pods — picks the seed that is rolled first and alone. Returns
     * the order with the seed first. Never fails: a taint is best effort.
     */
    private Future<List<NodeFacts>> placeEvictedPods(List<NodeFacts> ordered) {
        List<Node> selected = initial.keySet().stream().map(raw::get).filter(n -> n != null).toList();
        RolloutPlan.Eviction eviction = RolloutPlan.eviction(settings.staleTaint(), ordered, selected, freshAtDecision);
        Future<Map<String, Integer>> pods = eviction.seedNeeded() ? PodCounts.evictable(podOps, eviction.toTaint())
                : Future.succeededFuture(Map.of());
        return pods.otherwise(Map.of()).compose(counts -> {
            if (stage == Stage.DONE) {
                return Future.succeededFuture(ordered);
            }
            List<String> names = eviction.names();
            placement = eviction.placement(counts);
            if (placement != null) {
                observer.accept(new RunEvent.Placed(placement));
            }
            String seed = placement == null ? null : placement.seed();
            List<Node> leftovers = raw.values().stream()
                    .filter(n -> taints.leftover(n) && !names.contains(n.getMetadata().getName())).toList();
            return taints.untaintAll(leftovers)
                    .compose(v -> taints.taint(names))
                    .map(v -> {
                        if (seed == null) {
                            return ordered;
                        }
                        List<NodeFacts> seeded = new ArrayList<>(ordered);
                        seeded.sort(java.util.Comparator.comparing(f -> !f.name().equals(seed)));
                        return seeded;
                    });
        });
    }

    // ---- 7. roll ---------------------------------------------------------------------------------------------

    private void roll(List<NodeFacts> ordered) {
        stage = Stage.ROLLING;
        budget = settings.budget().budget(initial.size());
        rollTotal = ordered.size();
        observer.accept(new RunEvent.RollStarted(ordered.stream().map(NodeFacts::name).toList(), budget, initial.size()));
        int index = 1;
        for (NodeFacts f : ordered) {
            Ownership owner = Decisions.leftover(f);
            NodeRoll roll = new NodeRoll(this, f, index++, ordered.size(),
                    owner != null && owner.phase().mayHaveRebooted() ? owner : null);
            rolls.add(roll);
        }
        // Nodes an earlier run may already have rebooted (phase rebooting/verifying) are started at once,
        // outside the budget: their reboot may be under way, so they are only waited for, never rebooted
        // again here. Leftovers in phase draining were released in decide() and wait for the budget and
        // the control-plane rule like any other node.
        for (NodeRoll roll : rolls.queued()) {
            if (roll.resumed()) {
                silences.owe(roll.name()); // the earlier run may have left its silence: expired when this step ends
                rolls.start(roll);
            }
        }
        if (placement != null && placement.seed() != null) {
            rolls.seed(placement.seed());
        }
        decideJoinedPending();
        pump();
    }

    /** Starts every queued node that may start now; finishes when nothing is left. */
    private void pump() {
        if (stage != Stage.ROLLING || untaintsPending > 0) {
            return;
        }
        if (!stopping()) {
            blockedBecause = rolls.startWhatFits(facts::get, safetyView(), budget);
        }
        if (rolls.noneInFlight() && (rolls.queueEmpty() || stopping())) {
            finishAfterInventory();
            return;
        }
        if (!stopping() && rolls.noneInFlight() && !rolls.queueEmpty()) {
            armBlockedTimer();
        } else {
            cancelBlockedTimer();
        }
    }

    private void armBlockedTimer() {
        if (blockedTimer >= 0) {
            return;
        }
        if (blockedBecause != null) {
            observer.accept(new RunEvent.Blocked(blockedBecause));
        }
        Duration timeout = settings.rebootTimeout();
        blockedTimer = ticker.setTimer(timeout, () -> {
            blockedTimer = -1;
            if (stage == Stage.ROLLING && rolls.noneInFlight() && !rolls.queueEmpty() && !stopping()) {
                stopWith(StopReason.TIMED_OUT, "no node could start for " + NodeRoll.seconds(timeout) + ": "
                        + (blockedBecause == null ? "blocked" : blockedBecause));
                pump();
            }
        });
    }

    private void cancelBlockedTimer() {
        if (blockedTimer >= 0) {
            ticker.cancelTimer(blockedTimer);
            blockedTimer = -1;
        }
    }

    /**
     * Drops an earlier run's annotations from nodes it had not rebooted; uncordons those crifresh cordoned. Only
     * while this run holds the Lease (the earlier run then cannot: see docs/design.md, "Fencing"), and each
     * guarded by a fresh read that still shows the ownership this run decided on.
     */
    private Future<Void> releaseLeftovers(List<NodeFacts> leftovers) {
        List<Future<Node>> patches = new ArrayList<>();
        for (NodeFacts f : leftovers) {
            String seen = f.annotation(CrifreshAnnotations.ROLLOUT);
            boolean uncordon = "true".equals(f.annotation(CrifreshAnnotations.CORDONED));
            observer.accept(new RunEvent.LeftoverReleased(f.name(), uncordon));
            patches.add(GuardedPatch.claim(this, f.name(), node -> {
                if (node == null) {
                    return new GuardedPatch.Skip();
                }
                NodeFacts now = NodeFacts.of(node);
                String owner = now.annotation(CrifreshAnnotations.ROLLOUT);
                if (owner == null) {
                    return new GuardedPatch.Skip();
                }
                if (!owner.equals(seen)) {
                    return new GuardedPatch.Refuse(f.name() + " is now owned by '" + owner + "'");
                }
                return new GuardedPatch.Patch(NodePatches.release(node, "true".equals(now.annotation(CrifreshAnnotations.CORDONED))));
            }));
        }
        return Future.join(patches).mapEmpty();
    }

    // ---- action none -----------------------------------------------------------------------------------------

    private void waitForFresh(List<NodeFacts> ordered) {
        stage = Stage.WAITING;
        decideJoinedPending();
        if (ordered.isEmpty()) {
            finishAfterInventory();
            return;
        }
        ordered.forEach(f -> {
            freshWait.add(f.name());
            rebootOrder.add(f.name());
        });
        Duration timeout = settings.attestTimeout();
        observer.accept(new RunEvent.FreshWaitStarted(settings.action().wire(), timeout, List.copyOf(freshWait.names())));
        freshWait.start(timeout);
        classifyLatest(freshWait.snapshot()).onSuccess(latest -> freshWait.checkAll(latest.values()));
    }

    /**
     * Every waited-for node turned fresh (or left): the run ends, or with action auto goes on to reboot the nodes
     * that do not restart containerd themselves.
     */
    private void freshWaitEnded() {
        if (stage != Stage.WAITING) {
            return;
        }
        if (deferredReboots == null || stopping()) {
            finishAfterInventory();
            return;
        }
        List<NodeFacts> reboots = RolloutOrder.order(deferredReboots.stream().map(f -> facts.getOrDefault(f.name(), f))
                .filter(f -> facts.containsKey(f.name())).toList());
        List<NodeFacts> leftovers = deferredLeftovers;
        deferredReboots = null;
        deferredLeftovers = List.of();
        // Out of WAITING: a node that joins now is decided when the roll begins.
        stage = Stage.DECIDING;
        checkDriver(reboots, leftovers);
    }

    /** With action auto, what the node's Talos version decided, on the node's Events and the progress output. */
    private void announceAction(String name, NodeAction action) {
        if (settings.action() != Action.AUTO) {
            return;
        }
        observer.accept(new RunEvent.NodeDecided(name, action));
    }

    private void freshTimedOut() {
        Duration timeout = settings.attestTimeout();
        for (String name : freshWait.names()) {
            Classification c = facts.containsKey(name) ? classifyNow(name) : initial.get(name);
            ended(name, Outcome.FAILED, "did not attest fresh within " + NodeRoll.seconds(timeout) + ": " + c.verdict().wire()
                    + " (" + c.reason() + ") " + c.detail());
        }
        stopWith(StopReason.TIMED_OUT, freshWait.size() + " node(s) did not attest fresh within "
                + NodeRoll.seconds(timeout) + ": " + String.join(", ", freshWait.names()));
        finish();
    }

    private void turnedFresh(Classification c) {
        // With action auto the reboots follow: a node that turned fresh is capacity for their evicted pods.
        freshAtDecision.add(c.name());
        ended(c.name(), Outcome.BECAME_FRESH, "turned fresh without a reboot; " + c.detail());
        observer.accept(new RunEvent.TurnedFresh(c));
    }

    /** Re-checks a node the wait is still waiting for, now that it changed. */
    private void recheck(PendingWait wait, String name) {
        if (!wait.contains(name) || facts.get(name) == null) {
            return;
        }
        wait.check(classifyNow(name));
    }

    // ---- informer events -------------------------------------------------------------------------------------

    @Override
    public void upsert(Node node) {
        String name = node.getMetadata().getName();
        if (stage == Stage.DONE) {
            return;
        }
        NodeFacts before = facts.get(name);
        remember(node);
        if (!initial.containsKey(name)) {
            joinedUpdate(name);
        }
        switch (stage) {
            case CONFIG_WAIT -> recheck(configWait, name);
            case WAITING -> recheck(freshWait, name);
            case ROLLING -> {
                NodeRoll roll = rolls.inFlight(name);
                if (roll != null) {
                    roll.onUpdate();
                }
                NodeFacts after = facts.get(name);
                if (before == null || before.ready() != after.ready() || before.unschedulable() != after.unschedulable()) {
                    pump();
                }
            }
            default -> { }
        }
    }

    @Override
    public void deleted(String name) {
        if (stage == Stage.DONE) {
            return;
        }
        raw.remove(name);
        facts.remove(name);
        if (configWait.remove(name)) {
            ended(name, Outcome.NOT_ATTEMPTED, "the node was deleted during the run");
            configWait.endIfEmpty();
        }
        if (freshWait.remove(name)) {
            ended(name, Outcome.FAILED, "the node was deleted while waiting for it to turn fresh");
            stopWith(StopReason.NODE_FAILED, name + " was deleted during the run");
            freshWait.endIfEmpty();
        }
        NodeRoll roll = rolls.inFlight(name);
        if (roll != null) {
            roll.onDeleted();
        }
        if (joinedNodes.remove(name)) {
            observer.accept(new RunEvent.JoinedDeleted(name));
            if (stage == Stage.WAITING && freshWait.isEmpty()) {
                freshWaitEnded();
            }
        }
        if (stage == Stage.ROLLING) {
            pump();
        }
    }

    // ---- nodes that join during the run (JoinedNodes) --------------------------------------------------------

    /** An update of a node that was not classified at the start: a newcomer is waited for, a waited-for one re-checked. */
    private void joinedUpdate(String name) {
        boolean underWay = stage == Stage.CONFIG_WAIT || stage == Stage.DECIDING || stage == Stage.ROLLING
                || stage == Stage.WAITING;
        if (underWay && !joinedNodes.known(name)) {
            joinedNodes.add(name);
            observer.accept(new RunEvent.Joined(name, settings.attestTimeout()));
        }
        if (joinedNodes.waiting(name)) {
            joinedNodes.check(classifyNow(name));
        }
    }

    /** A joined node attested fresh or stale, or its wait ended: decide it now, or once rolling starts. */
    private void joinedSettled(String name) {
        if (stage == Stage.DONE || facts.get(name) == null) {
            return;
        }
        if (stage == Stage.CONFIG_WAIT) {
            // Not decided yet: it joins the nodes decide() looks at, config-pending ones the config wait.
            Classification c = classifyNow(name);
            initial.put(name, c);
            if (c.verdict() == NodeVerdict.CONFIG_PENDING) {
                configWait.add(name);
            }
            return;
        }
        if (stage == Stage.ROLLING || stage == Stage.WAITING) {
            decideJoined(name);
        } else {
            joinedPending.add(name);
        }
    }

    private void decideJoinedPending() {
        List<String> pending = List.copyOf(joinedPending);
        joinedPending.clear();
        pending.forEach(this::decideJoined);
    }

    /** Decides a joined node like any other: fresh is skipped, stale and unknown are rolled (or waited for). */
    private void decideJoined(String name) {
        NodeFacts f = facts.get(name);
        if (f == null) {
            return;
        }
        Classification c = classifyNow(name);
        initial.put(name, c);
        String joined = "joined during the run; ";
        switch (c.verdict()) {
            case FRESH -> {
                decided(name, Decision.SKIP);
                ended(name, Outcome.SKIPPED, joined + c.detail());
                observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.SKIPPED));
            }
            case CONFIG_PENDING -> {
                decided(name, Decision.WAIT);
                ended(name, Outcome.FAILED, joined + "its config did not hold the desired credential within "
                        + NodeRoll.seconds(settings.attestTimeout()) + ": " + c.detail());
                stopWith(StopReason.TIMED_OUT, name + " joined during the run and its config did not hold the desired credential for "
                        + classifier.registry() + " within " + NodeRoll.seconds(settings.attestTimeout()));
            }
            default -> {
                NodeAction action = NodeAction.forNode(settings.action(), f);
                if (action.action() == Action.NONE && settings.action() == Action.AUTO && stage == Stage.ROLLING) {
                    // auto: the wait is over once the reboots began; a node joining then is rebooted (fail toward rebooting).
                    action = new NodeAction(Action.REBOOT, action.why() + ", but it joined after the wait ended");
                }
                boolean rebootIt = action.action() == Action.REBOOT;
                decided(name, rebootIt ? Decision.REBOOT : Decision.WAIT);
                announceAction(name, action);
                if (stopping()) {
                    ended(name, Outcome.NOT_ATTEMPTED, joined + "not attempted: the rollout stopped; " + c.detail());
                } else if (rebootIt && stage == Stage.WAITING) {
                    observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.AFTER_THE_WAIT));
                    deferredReboots.add(f);
                } else if (rebootIt) {
                    observer.accept(new RunEvent.JoinedDecided(name, c, RunEvent.JoinedRoute.ROLLED));
                    joinsPending++;
                    taints.taint(List.of(name)).onComplete(ar -> {
                        joinsPending--;
                        if (stage == Stage.ROLLING && facts.get(name) != null) {
                            rolls.add(new NodeRoll(this, facts.get(name), ++rollTotal, rollTotal, null));
                        }
                        pump();
                    });
                    return;
                } else {
                    rebootOrder.add(name);
                    boolean restart = freshWait.isEmpty();
                    freshWait.add(name);
                    if (restart) {
                        freshWait.start(settings.attestTimeout());
                    }
                    freshWait.check(c);
                    return;
                }
            }
        }
        if (stage == Stage.ROLLING) {
            pump();
        } else if (stage == Stage.WAITING && freshWait.isEmpty()) {
            freshWaitEnded();
        }
    }

    /**
     * The run would end: first a final read of the selected nodes. A node nobody classified yet (the
     * informer had not delivered it) is handled as joined; the run ends only when every selected node is
     * fresh or in the report. A stopping run ends at once (its joined nodes are reported not attempted).
     */
    private void finishAfterInventory() {
        if (stage == Stage.DONE) {
            return;
        }
        if (stopping()) {
            finish();
            return;
        }
        if (inventoryReading || joinsPending > 0 || !joinedNodes.noneWaiting() || !joinedPending.isEmpty()) {
            return;
        }
        inventoryReading = true;
        nodeOps.list().onComplete(ar -> {
            inventoryReading = false;
            if (stage == Stage.DONE) {
                return;
            }
            if (ar.failed()) {
                stopWith(StopReason.NODE_FAILED, "the final inventory read failed: " + ErrorText.message(ar.cause()));
                finish();
                return;
            }
            boolean found = false;
            for (Node node : ar.result()) {
                String name = node.getMetadata().getName();
                if (!initial.containsKey(name) && !joinedNodes.known(name)) {
                    found = true;
                    remember(node);
                    joinedUpdate(name);
                }
            }
            if (!found && joinedNodes.noneWaiting() && joinsPending == 0) {
                observer.accept(new RunEvent.InventoryDone(ar.result().size()));
                finish();
            }
        });
    }

    // ---- RollHost --------------------------------------------------------------------------------------------

    @Override
    public Vertx vertx() {
        return vertx;
    }

    @Override
    public CoordinatorSettings settings() {
        return settings;
    }

    @Override
    public NodeOps nodes() {
        return nodeOps;
    }

    @Override
    public PodOps pods() {
        return podOps;
    }

    @Override
    public RebootDriver driver() {
        return driver;
    }

    @Override
    public Gates gates() {
        return gates;
    }

    @Override
    public List<NodeFacts> clusterView() {
        return safetyView();
    }

    @Override
    public NodeFacts facts(String name) {
        return facts.get(name);
    }

    @Override
    public Classification classifyNow(String name) {
        return cache.classify(facts.get(name), clock.instant());
    }

    /** Classifies the named nodes' latest state off the event loop; the results also fill the cache. */
    private Future<Map<String, Classification>> classifyLatest(java.util.Collection<String> names) {
        List<NodeFacts> latest = names.stream().map(facts::get).filter(f -> f != null).toList();
        Instant now = clock.instant();
        return BulkClassify.classifyAll(context, classifier, latest, now).onSuccess(map -> {
            if (stage != Stage.DONE) {
                map.values().forEach(c -> cache.remember(c, now));
            }
        });
    }

    @Override
    public boolean stopping() {
        return stop != null;
    }

    @Override
    public Fence fence() {
        return fence;
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public ApiRetry retry() {
        return retry;
    }

    @Override
    public Future<List<Node>> freshNodeList() {
        return freshNodes.fresh();
    }

    @Override
    public int budget() {
        return budget;
    }

    @Override
    public java.util.Set<String> inFlight() {
        return rolls.inFlightNames();
    }

    @Override
    public void progress(NodeRoll roll, String text) {
        observer.accept(new RunEvent.NodeProgress(roll.prefix(), null, text));
    }

    @Override
    public void progress(NodeRoll roll, ProgressListener.Level level, String text) {
        observer.accept(new RunEvent.NodeProgress(roll.prefix(), level, text));
    }

    @Override
    public void event(String node, EventReason reason, String message) {
        observer.accept(new RunEvent.NodeEvent(node, reason, message));
    }

    /** A patch we sent returned this node (see {@link PatchEchoNodeOps}). */
    private void patched(Node node) {
        if (stage == Stage.DONE || node == null) {
            return;
        }
        // A patch's answer can arrive after the informer delivered a newer state (the agent's attestation from
        // the new boot, say); taking it would roll the view back, and no later event would bring it forward.
        Node known = raw.get(node.getMetadata().getName());
        if (known != null && ResourceVersions.older(node.getMetadata().getResourceVersion(), known.getMetadata().getResourceVersion())) {
            return;
        }
        remember(node);
    }


    /** Alerts are noise, not safety: not fenced like a cluster write, but never created once the run may not act. */
    @Override
    public Future<Void> silence(String node) {
        if (!fence.mayWrite() || stopping()) {
            return Future.succeededFuture();
        }
        return silences.create(node);
    }

    @Override
    public void rebootRequested(NodeRoll roll) {
        if (!rebootOrder.contains(roll.name())) {
            rebootOrder.add(roll.name());
        }
    }

    @Override
    public void finished(NodeRoll roll) {
        rolls.finished(roll);
        silences.expire(roll.name()); // every way a node's step ends; never fails
        NodeEnd end = roll.end();
        if (end.stops() != null) {
            stopWith(end.stops(), roll.name() + ": " + end.why());
        }
        if (roll.outcome() == Outcome.REBOOTED) {
            // Fresh now: take the taint off before the next drain, so that its evicted pods may land here.
            untaintsPending++;
            taints.untaint(roll.name()).onComplete(ar -> {
                untaintsPending--;
                pump();
            });
            return;
        }
        // Not re-entrant: the roll may report from inside pump().
        context.runOnContext(v -> pump());
    }

    // ---- 8. stop + 9. report -------------------------------------------------------------------------------

    private void stopWith(StopReason reason, String why) {
        if (stop == null) {
            stop = reason;
            error = why;
            observer.accept(new RunEvent.Stopping(reason, why, stage == Stage.ROLLING));
        }
        cancelBlockedTimer();
    }

    private void finish() {
        if (stage == Stage.DONE) {
            return;
        }
        stage = Stage.DONE;
        open = false;
        configWait.cancel();
        freshWait.cancel();
        for (String name : joinedNodes.waitingFor()) {
            if (facts.get(name) != null) {
                initial.put(name, classifyNow(name));
                ended(name, Outcome.NOT_ATTEMPTED, "joined during the run; not attempted: the rollout ended while waiting for"
                        + " its attestation (" + error + ")");
            }
        }
        joinedNodes.cancel();
        cancelBlockedTimer();
        lease.stopRenewing();
        rolls.abandonQueued("not attempted: the rollout stopped (" + error + ")");
        Report report = report();
        gates.close().compose(v -> removeTaints()).eventually(silences::expireAll).eventually(this::eventsSettled)
                .eventually(lease::release).onComplete(ar -> {
            closeWatch(); // whether or not the Lease could be released: the run is over either way
            promise.tryComplete(report.withWarnings(silences.warnings()));
        });
    }

    /**
     * Every exit path: crifresh's taint comes off every selected node — also an earlier run's leftovers —
     * unless the Lease was never held (another run is working) or was lost: then no side effect at all (see
     * docs/design.md, "Fencing"), and the next run removes this run's taints as leftovers.
     */
    /** The Events already sent, answered; at most {@link #EVENTS_SETTLE} (they are best effort). */
    private Future<Void> eventsSettled() {
        Promise<Void> settled = Promise.promise();
        long timer = ticker.setTimer(EVENTS_SETTLE, settled::tryComplete);
        events.settled().onComplete(ar -> {
            ticker.cancelTimer(timer);
            settled.tryComplete();
        });
        return settled.future();
    }

    private Future<Void> removeTaints() {
        if (!lockHeld || stop == StopReason.LOCK_LOST) {
            return Future.succeededFuture();
        }
        return taints.untaintAll(new ArrayList<>(raw.values()))
                .compose(v -> taints.untaintRemembered());
    }

    private void closeWatch() {
        if (watch != null) {
            watch.close();
        }
        if (clusterWatch != null) {
            clusterWatch.close();
        }
    }

    private Report report() {
        List<NodeReport> nodes = new ArrayList<>();
        for (Classification c : initial.values()) {
            NodeResult recorded = results.getOrDefault(c.name(), NodeResult.NONE);
            nodes.add(recorded.report(c, settings.action(), rolls.roll(c.name()), stop != null));
        }
        Result result = stop == null ? Result.SUCCEEDED : stop == StopReason.LOCK_LOST ? Result.LEASE_LOST : Result.FAILED;
        Report report = Report.of(result, nodes, rebootOrder, stop == null ? StopReason.COMPLETED : stop, error);
        report = report.withJoinedDuringRun(joinedNodes.all()).withGates(gates.notes());
        return placement == null ? report : report.withPlacement(placement);
    }

    private void decided(String name, Decision decision) {
        results.put(name, results.getOrDefault(name, NodeResult.NONE).decided(decision));
    }

    private void ended(String name, Outcome outcome, String detail) {
        results.put(name, results.getOrDefault(name, NodeResult.NONE).ended(outcome, detail));
    }

    private void noted(String name, String detail) {
        results.put(name, results.getOrDefault(name, NodeResult.NONE).noted(detail));
    }
}
