package dev.crifresh.sim.world;

import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.base.SimKeys;
import dev.crifresh.sim.external.SimulatedPrometheus;
import dev.crifresh.sim.external.SimulatedRegistry;
import dev.crifresh.sim.external.SimulatedTalosctl;
import dev.crifresh.sim.kube.ApiOptions;
import dev.crifresh.sim.kube.EvictionResponder;
import dev.crifresh.sim.kube.HostileAttestations;
import dev.crifresh.sim.node.Kubelet;
import dev.crifresh.sim.kube.MockApi;
import dev.crifresh.sim.node.NodeObjects;
import dev.crifresh.sim.kube.PodScheduler;
import dev.crifresh.sim.kube.PodStarter;
import dev.crifresh.sim.node.StatusPatch;
import dev.crifresh.sim.node.AgentLauncher;
import dev.crifresh.sim.node.HostRoot;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.ClaimsJson;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.sim.scenario.AgentMode;
import dev.crifresh.sim.scenario.ConfigUpdate;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.scenario.NodeSpec;
import dev.crifresh.sim.scenario.Scenario;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * A simulated Talos cluster built from a scenario: one mock API server, and per node a Node object, its
 * pods, a host root folder and (where the scenario says so) a real agent. The simulated platform —
 * kubelet, reboots, config renders, containerd restarts — acts on one platform thread,
 * in order; kubelet heartbeats, evicted pods' terminations, agent starts and the pods' controller, scheduler
 * and starts (one pod thread) run beside it, so that a
 * simulated fact (a pod gone, a node back) never waits for unrelated work on other nodes. Everything blocking; call it from a plain thread, never a Vert.x event loop.
 */
@SuppressWarnings("checkstyle:filelength") // the simulated platform: the one owner of its nodes, threads and events
public final class SimulatedWorld implements AutoCloseable {
    /** Kubelet status heartbeat period. */
    static final Duration HEARTBEAT = Duration.ofSeconds(5);
    /** Talos >= 1.14: how long after a CRI config write containerd is running again. */
    static final Duration CONTAINERD_RESTART_DELAY = Duration.ofMillis(250);
    private static final Duration PLATFORM_CALL_TIMEOUT = Duration.ofSeconds(30);
    /** How long {@link #close} waits for each group of the simulation's threads to finish what they are doing. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    /** Agents starting at once (after a wave of reboots, or all at the simulation's start). */
    private static final int AGENT_STARTERS = 4;
    private static final int KUBELET_POSTERS = 4;
    private static final int POD_TERMINATORS = 8;
    /** Clusters up to this size heartbeat every {@link #HEARTBEAT}; larger ones proportionally less often. */
    static final int NODES_PER_HEARTBEAT_STEP = 30;

    private final Scenario scenario;
    private final Path workDir;
    private final MockApi api;
    private final SimKeys keys;
    private final ScheduledExecutorService platform;
    /**
     * Off the platform thread, so that no simulated fact waits for unrelated work on other nodes: kubelet
     * status heartbeats (N nodes' patches every 5 s), Ready and NotReady posts ({@link Kubelet}), evicted
     * pods terminating, agents starting and stopping. Their API writes tolerate concurrent writers
     * ({@link StatusPatch} re-reads and retries).
     */
    private final ScheduledExecutorService kubeletHeartbeats;
    private final ExecutorService kubeletPosts;
    private final ScheduledExecutorService terminations;
    /**
     * The ReplicaSet controller, the scheduler and the kubelets' pod starts ({@link PodScheduler}, {@link PodStarter}),
     * in order, beside the platform thread: a drain of many nodes sets hundreds of pod replacements in motion, and
     * their API calls must not delay the nodes' reboots and returns.
     */
    private final ScheduledExecutorService podThread;
    private final ExecutorService agentStarter;
    private final Kubelet kubelet;
    private final EvictionResponder evictions;
    private final SimulatedRegistry registry;
    private final PodStarter pods;
    private final PodScheduler scheduler;
    private final SimulatedPrometheus prometheus;
    private final SimulatedTalosctl talosctl;
    private final AgentLauncher launcher;
    /** Synchronized: nodes that join during the run are added on the platform thread while others read. */
    private final Map<String, SimulatedNode> nodes = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<SimEvent> events = new CopyOnWriteArrayList<>();
    private final List<Consumer<SimEvent>> listeners = new CopyOnWriteArrayList<>();
    private final List<RebootRequest> rebootRequests = new CopyOnWriteArrayList<>();
    private volatile Instant runStartedAt;
    private volatile Credential desired;

    private SimulatedWorld(Scenario scenario, Vertx vertx,
            BiFunction<MockApi, SimKeys, AgentLauncher> launchers, ApiOptions apiOptions) throws IOException {
        this.scenario = scenario;
        this.desired = scenario.desiredCredential();
        this.workDir = Files.createTempDirectory("crifresh-sim-");
        this.api = MockApi.start(vertx, apiOptions);
        this.keys = SimKeys.generate();
        this.platform = daemonScheduler("crifresh-sim-platform", 1);
        this.kubeletPosts = Executors.newFixedThreadPool(KUBELET_POSTERS, daemon("crifresh-sim-kubelet-post"));
        this.kubelet = new Kubelet(api.client(), kubeletPosts);
        this.kubeletHeartbeats = daemonScheduler("crifresh-sim-kubelet-heartbeat", 1);
        // a drain of many nodes at once evicts hundreds of pods; a kubelet terminates its own pods in parallel
        this.terminations = daemonScheduler("crifresh-sim-pod-termination", POD_TERMINATORS);
        this.agentStarter = Executors.newFixedThreadPool(AGENT_STARTERS, daemon("crifresh-sim-agent-start"));
        this.podThread = daemonScheduler("crifresh-sim-pods", 1);
        this.evictions = new EvictionResponder(api.server(), api.client(), podThread, terminations,
                scenario.simulation().podTermination(), this::record);
        this.launcher = launchers.apply(api, keys);
        this.registry = new SimulatedRegistry(scenario.registry(), scenario.revokedCredentials());
        this.pods = new PodStarter(api.client(), podThread, registry, this::node, this::record);
        this.scheduler = new PodScheduler(api.client(), podThread, evictions::allow, this::record);
        this.evictions.onGone(scheduler::evictedPodGone);
        this.prometheus = SimulatedPrometheus.start(vertx, scenario.alerts(), () -> runStartedAt);
        this.talosctl = new SimulatedTalosctl(this::nodes);
    }

    /**
     * Builds the cluster as the deploy job finds it: API objects, host roots, hostile conditions not yet
     * written and no agent started (see {@link #startAgents}).
     */
    public static SimulatedWorld create(Scenario scenario, Vertx vertx,
            BiFunction<MockApi, SimKeys, AgentLauncher> launchers) {
        return create(scenario, vertx, launchers, ApiOptions.DEFAULT);
    }

    /** As {@link #create(Scenario, Vertx, BiFunction)}, with the API server listening as {@code apiOptions} says. */
    public static SimulatedWorld create(Scenario scenario, Vertx vertx,
            BiFunction<MockApi, SimKeys, AgentLauncher> launchers, ApiOptions apiOptions) {
        SimulatedWorld cluster;
        try {
            cluster = new SimulatedWorld(scenario, vertx, launchers, apiOptions);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the simulation's work folder", e);
        }
        try {
            cluster.populate();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void populate() {
        Instant start = Instant.now();
        int index = 0;
        for (NodeSpec spec : scenario.nodes()) {
            if (spec.joinsAfter() == null) {
                createNode(spec, index, start);
            }
            index++;
        }
        pods.start();
        scheduler.start();
        long heartbeat = heartbeatPeriod(scenario.nodes().size()).toMillis();
        kubeletHeartbeats.scheduleAtFixedRate(this::heartbeats, heartbeat, heartbeat, TimeUnit.MILLISECONDS);
    }

    /** The node's Node object, pods, host root and boot, dated {@code start}; returns it (agent not started). */
    private SimulatedNode createNode(NodeSpec spec, int index, Instant start) {
        HostRoot host = new HostRoot(workDir.resolve("nodes").resolve(spec.name()));
        SimulatedNode node = new SimulatedNode(spec, index, scenario.registry(), scenario.desiredCredential(),
                host, this::record);
        node.firstBoot(start);
        Node created = api.client().nodes().resource(NodeObjects.node(spec, index, node.boot().bootId(), start))
                .create();
        node.uid(created.getMetadata().getUid());
        for (Pod pod : NodeObjects.pods(spec, node.uid())) {
            api.client().pods().resource(pod).create();
            if (NodeObjects.APP_NAMESPACE.equals(pod.getMetadata().getNamespace())) {
                evictions.allow(pod);
            } else {
                evictions.watchForbidden(pod);
            }
        }
        if (spec.batchJob() != null) {
            Pod job = api.client().pods().resource(NodeObjects.batchJobPod(spec)).create();
            evictions.allow(job);
        }
        nodes.put(spec.name(), node);
        return node;
    }

    /** A node of the scenario joins now, as an autoscaler's new node would: Node, pods, a running agent. */
    private void join(NodeSpec spec, int index) {
        try {
            SimulatedNode node = createNode(spec, index, Instant.now());
            node.startAgent(launcher, agentStarter).join();
            record(new SimEvent(Instant.now(), spec.name(), SimEvent.Kind.NODE_JOINED,
                    "booted " + spec.bootedAgo().toSeconds() + " s ago"));
        } catch (RuntimeException e) {
            record(new SimEvent(Instant.now(), spec.name(), SimEvent.Kind.PLATFORM_ERROR, "could not join: " + e.getMessage()));
        }
    }

    /** Also tells {@code listener} of every later platform event, as it happens. */
    public void onEvent(Consumer<SimEvent> listener) {
        listeners.add(listener);
    }

    private void record(SimEvent event) {
        events.add(event);
        for (Consumer<SimEvent> listener : listeners) {
            listener.accept(event);
        }
    }

    /** Starts a real agent on every node whose scenario says {@code agent: running}. */
    public void startAgents() {
        List<CompletableFuture<Void>> started = onPlatform(() -> {
            List<CompletableFuture<Void>> starts = new ArrayList<>();
            for (SimulatedNode node : nodes()) {
                starts.add(node.startAgent(launcher, agentStarter));
            }
            return starts;
        });
        try {
            CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * Waits until every node with a running agent carries that agent's condition for the node's current
     * boot.
     *
     * @throws TimeoutException naming the nodes still silent
     */
    public void awaitAgentsPublished(Duration timeout) throws TimeoutException, InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            List<String> silent = new ArrayList<>();
            for (SimulatedNode node : nodes()) {
                if (node.agentMode() == AgentMode.RUNNING && node.state() == SimulatedNode.State.UP
                        && !attestsCurrentBoot(node)) {
                    silent.add(node.name());
                }
            }
            if (silent.isEmpty()) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new TimeoutException("no attestation within " + timeout.toSeconds() + " s from the agent on "
                        + String.join(", ", silent));
            }
            Thread.sleep(50);
        }
    }

    /** Whether the node's condition carries a token (of any validity) for its current boot. */
    public boolean attestsCurrentBoot(SimulatedNode node) {
        return claims(node.name()).map(c -> node.boot().bootId().equals(c.bootId())).orElse(false);
    }

    /** The claims in the node's condition as published (signature not checked), if any. */
    public Optional<AttestationClaims> claims(String nodeName) {
        return condition(nodeName).flatMap(c -> AttestationMessage.token(c.getMessage())).flatMap(token -> {
            String[] parts = token.split("\\.", -1);
            if (parts.length != 3) {
                return Optional.empty();
            }
            try {
                return Optional.of(ClaimsJson.read(
                        new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        });
    }

    /** The node's {@code ContainerdConfigFresh} condition, if any. */
    public Optional<NodeCondition> condition(String nodeName) {
        Node node = api.client().nodes().withName(nodeName).get();
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return node.getStatus().getConditions().stream()
                .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).findFirst();
    }

    /** Writes the scenario's forged, tampered, copied, earlier-boot and expired conditions. */
    public void writeHostileAttestations() {
        HostileAttestations hostile = new HostileAttestations(api.client(), keys);
        for (SimulatedNode node : nodes()) {
            if (node.agentMode().isHostile()) {
                List<SimulatedNode> others = nodes().stream().filter(n -> n != node).toList();
                hostile.write(node, others);
                record(new SimEvent(Instant.now(), node.name(), SimEvent.Kind.HOSTILE_ATTESTATION,
                        node.agentMode().wire()));
            }
        }
    }

    /** The coordinator starts now: config updates are scheduled relative to this moment. */
    public void beginRun() {
        runStartedAt = Instant.now();
        for (int i = 0; i < scenario.nodes().size(); i++) {
            NodeSpec spec = scenario.nodes().get(i);
            if (spec.joinsAfter() != null) {
                int index = i;
                platform.schedule(() -> join(spec, index), spec.joinsAfter().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        for (SimulatedNode node : nodes()) {
            Duration after = node.spec().deletedAfter();
            if (after != null) {
                platform.schedule(() -> platformAction(node, () -> deleteNode(node.name())), after.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        for (int i = 0; i < scenario.nodes().size(); i++) {
            NodeSpec spec = scenario.nodes().get(i);
            if (spec.joinsAfter() != null && spec.deletedAfter() != null) {
                platform.schedule(() -> deleteNode(spec.name()), spec.deletedAfter().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        for (var alert : scenario.alerts()) {
            if (alert.clearsAfter() != null) {
                platform.schedule(() -> record(new SimEvent(Instant.now(), null, SimEvent.Kind.ALERT_CLEARED, alert.name())),
                        alert.clearsAfter().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        for (SimulatedNode node : nodes()) {
            var job = node.spec().batchJob();
            if (job != null && job.finishesAfter() != null) {
                platform.schedule(() -> platformAction(node, () -> finishBatchJob(node)), job.finishesAfter().toNanos(),
                        TimeUnit.NANOSECONDS);
            }
        }
        for (SimulatedNode node : nodes()) {
            ConfigUpdate update = node.spec().configUpdate();
            if (update != null) {
                Credential next = update.credential().resolve(scenario.desiredCredential());
                platform.schedule(() -> platformAction(node, () -> render(node, next)), update.after().toNanos(),
                        TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * A scale-down: the machine goes away with its agent and its pods, then its Node object is deleted. The simulation
     * forgets it (a reboot request for it then fails: no such node).
     */
    private void deleteNode(String name) {
        SimulatedNode node = nodes.remove(name);
        if (node == null) {
            return;
        }
        node.stopAgent();
        for (Pod pod : api.client().pods().inAnyNamespace().list().getItems()) {
            if (name.equals(pod.getSpec().getNodeName())) {
                api.client().pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                        .withGracePeriod(0).delete();
            }
        }
        api.client().nodes().withName(name).delete();
        record(new SimEvent(Instant.now(), name, SimEvent.Kind.NODE_DELETED, "its Node object was deleted (a scale-down)"));
    }

    private void finishBatchJob(SimulatedNode node) {
        String name = NodeObjects.batchJobPodName(node.name());
        api.client().pods().inNamespace(NodeObjects.JOB_NAMESPACE).withName(name).delete();
        record(new SimEvent(Instant.now(), node.name(), SimEvent.Kind.BATCH_JOB_FINISHED, NodeObjects.JOB_NAMESPACE + "/" + name));
    }

    private void render(SimulatedNode node, Credential next) {
        boolean written = node.renderCredential(next);
        if (written && (scenario.simulation().containerdRestartsOnConfigChange()
                || node.spec().talosVersion().restartsContainerdOnConfigChange())) {
            String bootId = node.boot().bootId();
            platform.schedule(() -> platformAction(node, () -> node.restartContainerd(bootId)),
                    CONTAINERD_RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * What the sim's reboot driver calls, and {@code talosctl reboot --wait=false} is for Talos: takes the
     * request and returns at once. The node then goes down (agent stopped, containerd gone, NotReady) and,
     * unless it never returns, is Ready again with a new boot id the scenario's reboot time after the request
     * (not after the platform thread got to it: its queue is the simulation's cost, not the rollout's).
     *
     * @throws IllegalArgumentException for an unknown node
     */
    public void requestReboot(String nodeName) {
        SimulatedNode node = node(nodeName);
        long requestedAt = System.nanoTime();
        platform.execute(() -> platformAction(node, () -> reboot(node, requestedAt)));
    }

    private void reboot(SimulatedNode node, long requestedAt) {
        if (node.state() != SimulatedNode.State.UP) {
            return;
        }
        boolean holdsDesired = node.credential().equals(desired);
        rebootRequests.add(new RebootRequest(node.name(), Instant.now(), holdsDesired, node.boots()));
        record(new SimEvent(Instant.now(), node.name(), SimEvent.Kind.REBOOT_REQUESTED,
                holdsDesired ? "config holds the desired credential" : "config does NOT hold the desired credential"));
        if (node.rebootRequested(kubelet, agentStarter)) {
            long backIn = requestedAt + scenario.simulation().reboot().toNanos() - System.nanoTime();
            platform.schedule(() -> platformAction(node, () -> {
                if (nodes.get(node.name()) != node) {
                    return; // deleted while it was down: it never comes back
                }
                node.rebootCompleted(kubelet, launcher, agentStarter);
                podThread.execute(() -> pods.nodeUp(node.name()));
            }), Math.max(0, backIn), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * The agent on {@code nodeName} hangs ({@link SimulatedNode#hangAgent}); returns at once, the agent stops on
     * the platform thread.
     *
     * @return whether the node runs an agent that can hang
     * @throws IllegalArgumentException for an unknown node
     */
    public boolean hangAgent(String nodeName) {
        SimulatedNode node = node(nodeName);
        if (node.agentRuntime().isEmpty() || node.state() != SimulatedNode.State.UP) {
            return false;
        }
        platform.execute(() -> platformAction(node, () -> node.hangAgent(agentStarter)));
        return true;
    }

    /**
     * A credential rotation, as a machine-config patch applied to every node would be: from now on
     * {@code next} is the desired credential, and the platform renders it into every node's CRI config
     * (in place; a node that is down renders it when it boots). Returns at once; the renders happen on
     * the platform thread, in node order.
     */
    public void rotateLater(Credential next) {
        desired = next;
        for (SimulatedNode node : nodes.values()) {
            platform.execute(() -> platformAction(node, () -> render(node, next)));
        }
    }

    /** The credential the platform last rendered for every node (the scenario's until a rotation). */
    public Credential desiredCredential() {
        return desired;
    }

    /**
     * The status heartbeat period of a simulation of {@code nodes} nodes: {@link #HEARTBEAT} up to 30 nodes,
     * 50 s at 300, so that all kubelets together stay at about six status patches a second on one machine
     * (a real kubelet with node leases reports its status every 5 minutes when nothing changes).
     */
    static Duration heartbeatPeriod(int nodes) {
        return HEARTBEAT.multipliedBy(Math.max(1, (nodes + NODES_PER_HEARTBEAT_STEP - 1) / NODES_PER_HEARTBEAT_STEP));
    }

    private void heartbeats() {
        for (SimulatedNode node : nodes()) {
            if (node.state() == SimulatedNode.State.UP) {
                platformAction(node, () -> kubelet.heartbeat(node.name()));
            }
        }
    }

    private void platformAction(SimulatedNode node, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            record(new SimEvent(Instant.now(), node.name(), SimEvent.Kind.PLATFORM_ERROR, String.valueOf(
                    e.getMessage())));
        }
    }

    private <T> T onPlatform(Callable<T> work) {
        return on(platform, work);
    }

    private static <T> T on(ExecutorService thread, Callable<T> work) {
        try {
            return thread.submit(work).get(PLATFORM_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the simulated platform did not answer within "
                    + PLATFORM_CALL_TIMEOUT.toSeconds() + " s", e);
        }
    }

    public Scenario scenario() {
        return scenario;
    }

    public KubernetesClient client() {
        return api.client();
    }

    public MockApi api() {
        return api;
    }

    public SimKeys keys() {
        return keys;
    }

    public SimulatedNode node(String name) {
        SimulatedNode node = nodes.get(name);
        if (node == null) {
            throw new IllegalArgumentException("no simulated node " + name);
        }
        return node;
    }

    public Collection<SimulatedNode> nodes() {
        synchronized (nodes) {
            return List.copyOf(nodes.values());
        }
    }

    public List<SimEvent> events() {
        return List.copyOf(events);
    }

    /**
     * Completes on the platform thread once every platform action due within {@code delay} from now has run:
     * the thread runs its actions in the order of their due times, so an action scheduled earlier for an
     * earlier time (a containerd restart, a node coming back) has run by then. Lets a test say "this did not
     * happen" on the simulation's own schedule instead of sleeping.
     */
    public CompletableFuture<Void> platformPassed(Duration delay) {
        CompletableFuture<Void> passed = new CompletableFuture<>();
        platform.schedule(() -> passed.complete(null), delay.toNanos(), TimeUnit.NANOSECONDS);
        return passed;
    }

    public List<RebootRequest> rebootRequests() {
        return List.copyOf(rebootRequests);
    }

    /** The simulated Prometheus ({@code --prometheus-url}). */
    public SimulatedPrometheus prometheus() {
        return prometheus;
    }

    /** What answers the etcd gate's talosctl commands for the simulated control planes. */
    public SimulatedTalosctl talosctl() {
        return talosctl;
    }

    /**
     * Waits, up to {@code timeout}, until every evicted pod's replacement is bound and every pod bound to a
     * node that is up has been started (pulled or refused). Returns whether it settled.
     */
    public boolean awaitPodsSettled(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            boolean settled = on(podThread, () -> scheduler.waiting() == 0
                    && api.client().pods().inAnyNamespace().list().getItems().stream()
                            .filter(PodStarter::needsStart)
                            .noneMatch(p -> nodes.containsKey(p.getSpec().getNodeName())
                                    && nodes.get(p.getSpec().getNodeName()).state() == SimulatedNode.State.UP));
            if (settled) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /** Accepted evictions of one pod. */
    public int evictions(String namespace, String pod) {
        return evictions.evictions(namespace, pod);
    }

    /** When {@link #beginRun} was called, or null. */
    public Instant runStartedAt() {
        return runStartedAt;
    }

    /** A scheduler whose delayed and periodic tasks are dropped when it shuts down (those running finish). */
    private static ScheduledExecutorService daemonScheduler(String name, int threads) {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(threads, daemon(name));
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return scheduler;
    }

    /**
     * Shuts the executors down, group after group, each group's running and queued tasks finished before the next
     * group's shutdown; a group that does not finish within {@link #STOP_TIMEOUT} is interrupted.
     */
    private static void stopInOrder(List<List<ExecutorService>> groups) {
        for (List<ExecutorService> group : groups) {
            group.forEach(ExecutorService::shutdown);
            long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
            for (ExecutorService executor : group) {
                try {
                    if (!executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        executor.shutdownNow();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    executor.shutdownNow();
                }
            }
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops every agent and the platform, shuts the API server down and deletes the host roots. */
    @Override
    public void close() {
        try {
            onPlatform(() -> {
                for (SimulatedNode node : nodes()) {
                    try {
                        node.stopAgent();
                    } catch (RuntimeException e) {
                        record(new SimEvent(Instant.now(), node.name(), SimEvent.Kind.PLATFORM_ERROR,
                                String.valueOf(e.getMessage())));
                    }
                }
                return null;
            });
        } finally {
            pods.close();
            prometheus.close();
            // Nothing may call the API server once it is gone: each thread stops taking work and finishes the call it
            // is in (not interrupted: an interrupted call fails, and a failed call is a simulation error), the
            // threads that hand work on before those they hand it to; only then does the API server stop.
            stopInOrder(List.of(List.of(platform, kubeletHeartbeats), List.of(terminations), List.of(podThread),
                    List.of(kubeletPosts, agentStarter)));
            api.close();
            HostRoot.deleteTree(workDir);
        }
    }
}
