package dev.crifresh.sim.node;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.sim.base.SimEvent;

import dev.crifresh.sim.scenario.AgentMode;
import dev.crifresh.sim.scenario.ClockSpec;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.scenario.NodeSpec;
import dev.crifresh.sim.scenario.RebootBehaviour;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One simulated Talos node: its host root, its current boot, the credential its CRI config holds, and
 * the agent that runs on it. Platform actions (boot, reboot, config change, containerd restart) are
 * called on the simulation's single platform thread; getters may be read from anywhere.
 */
public final class SimulatedNode {
    /** Where a fresh boot puts things, relative to the boot: base config, registry auth, containerd. */
    static final Duration BOOT_BASE_CONFIG = Duration.ofSeconds(1);
    static final Duration BOOT_AUTH_CONFIG = Duration.ofSeconds(3);
    static final Duration BOOT_CONTAINERD = Duration.ofSeconds(6);
    /** How long ago a simulated reboot's boot happened when the node reports back: after containerd started. */
    static final Duration BOOT_UPTIME_WHEN_READY = Duration.ofSeconds(8);
    /** How long after its start containerd binds its socket (it loads its plugins first). */
    static final Duration SOCKET_AFTER_START = Duration.ofMillis(40);
    /** How long after a clock step a rebooted node reports back (its kubelet, and agent, start after time sync). */
    static final Duration READY_AFTER_CLOCK_STEP = Duration.ofSeconds(2);

    public enum State { UP, REBOOTING, GONE }

    private final NodeSpec spec;
    private final int index;
    private final String registry;
    private final HostRoot host;
    private final Consumer<SimEvent> events;
    private volatile String uid;
    private volatile Boot boot;
    private volatile Credential credential;
    /** What the running CRI containerd read at its start; null while it does not run. */
    private volatile Credential loadedCredential;
    private volatile State state = State.UP;
    private volatile AgentMode agentMode;
    /** The agent of this boot hung ({@link #hangAgent}): nothing runs, and its last condition stays. */
    private volatile boolean agentHung;
    private volatile int boots;
    /** The agent of the current boot, possibly still starting; null when none runs. Set on the platform thread. */
    private volatile CompletableFuture<AgentLauncher.RunningAgent> agent;
    /** Completes once the previous boot's agent stopped: the next boot's agent starts after it. */
    private volatile CompletableFuture<Void> agentStopped = CompletableFuture.completedFuture(null);
    private long nextPid;

    public SimulatedNode(NodeSpec spec, int index, String registry, Credential desired, HostRoot host,
            Consumer<SimEvent> events) {
        this.spec = spec;
        this.index = index;
        this.registry = registry;
        this.host = host;
        this.events = events;
        this.credential = spec.credential().resolve(desired);
        this.agentMode = spec.agent();
        this.nextPid = 900 + Math.floorMod(spec.name().hashCode(), 400);
    }

    public String name() {
        return spec.name();
    }

    public NodeSpec spec() {
        return spec;
    }

    public String internalIp() {
        return NodeObjects.internalIp(index);
    }

    public String uid() {
        return uid;
    }

    public void uid(String uid) {
        this.uid = uid;
    }

    public Boot boot() {
        return boot;
    }

    /** The credential the node's CRI config (the file on disk) holds now. */
    public Credential credential() {
        return credential;
    }

    /**
     * The credential the node's running CRI containerd loaded when it started — what its image pulls use,
     * whatever the file says now (containerd never reloads it). Empty while containerd does not run.
     */
    public Optional<Credential> loadedCredential() {
        return Optional.ofNullable(loadedCredential);
    }

    public State state() {
        return state;
    }

    /** RUNNING while a real agent publishes for this node; the scenario's mode until the first reboot. */
    public AgentMode agentMode() {
        return agentMode;
    }

    /** How many times this node booted during the simulation (the initial boot counts as 1). */
    public int boots() {
        return boots;
    }

    /** The real agent running on this node now, if any (none while the node reboots). */
    public Optional<AgentRuntime> agentRuntime() {
        CompletableFuture<AgentLauncher.RunningAgent> starting = agent;
        if (starting == null || !starting.isDone() || starting.isCompletedExceptionally()) {
            return Optional.empty();
        }
        AgentLauncher.RunningAgent running = starting.getNow(null);
        return running == null ? Optional.empty() : running.runtime();
    }

    public HostRoot host() {
        return host;
    }

    /** The boot the scenario describes: back-dated, config and containerd at the scenario's offsets. */
    public void firstBoot(Instant simulationStart) {
        Instant bootWall = simulationStart.minus(spec.bootedAgo());
        Duration written = spec.configWrittenAfterBoot();
        Duration base = written.compareTo(BOOT_BASE_CONFIG) < 0 ? written : BOOT_BASE_CONFIG;
        bootAt(bootWall, base, written, spec.containerdStartedAfterBoot(), spec.clock().onBoot(1));
        if (spec.containerdCredential() != null) {
            loadedCredential = spec.containerdCredential();
        }
    }

    /** The node comes back from a reboot: a new boot that happened a few seconds ago. */
    public void rebootCompleted(Kubelet kubelet, AgentLauncher launcher, Executor starter) {
        ClockSpec clock = spec.clock().onBoot(boots + 1);
        Duration uptime = clock.correct() ? BOOT_UPTIME_WHEN_READY
                : max(BOOT_UPTIME_WHEN_READY, clock.steppedAfterBoot().plus(READY_AFTER_CLOCK_STEP));
        Instant bootWall = Instant.now().minus(uptime);
        bootAt(bootWall, BOOT_BASE_CONFIG, BOOT_AUTH_CONFIG, BOOT_CONTAINERD, clock);
        kubelet.registerBoot(name(), boot.bootId()).exceptionally(this::platformError);
        state = State.UP;
        agentHung = false;
        if (agentMode != AgentMode.ABSENT) {
            agentMode = AgentMode.RUNNING;
        }
        event(SimEvent.Kind.REBOOTED, "boot " + boots + ", boot id " + boot.bootId());
        startAgent(launcher, starter).exceptionally(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            event(SimEvent.Kind.PLATFORM_ERROR, String.valueOf(cause.getMessage()));
            return null;
        });
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * One boot at {@code bootWall} (true time): the config rendered and containerd started at these times
     * after it, each stamped by the node's wall clock as it read then ({@code clock}); the kernel's boot
     * time, which the agent reads after the step, is the true one.
     */
    private void bootAt(Instant bootWall, Duration baseConfig, Duration authConfig, Duration containerd,
            ClockSpec clock) {
        String bootId = UUID.randomUUID().toString();
        long systemPid = pid();
        host.boot(bootId, bootWall, systemPid);
        host.renderConfig(registry, credential, bootWall.plus(clock.stamp(baseConfig)),
                bootWall.plus(clock.stamp(authConfig)));
        long criPid = pid();
        long ticks = ProcFiles.ticks(containerd);
        host.startCriContainerd(criPid, ticks);
        host.bindContainerdSocket(criPid, bootWall.plus(clock.stamp(containerd.plus(SOCKET_AFTER_START))));
        loadedCredential = credentialAtContainerdStart();
        boot = new Boot(bootId, bootWall, systemPid, criPid, ticks);
        boots++;
    }

    /**
     * Starts a real agent when this node runs one (not for absent, hung or hostile attestations), on
     * {@code starter}, so that the platform thread goes on with other nodes while it starts (an agent's
     * start is a few API calls and its first evaluation; a wave of nodes returning at once must not queue
     * behind each other's). {@link #stopAgent} waits for a start in progress.
     *
     * @return completes once the agent runs; fails when it cannot start
     */
    public CompletableFuture<Void> startAgent(AgentLauncher launcher, Executor starter) {
        if (agentMode != AgentMode.RUNNING || state != State.UP) {
            return CompletableFuture.completedFuture(null);
        }
        Boot current = boot;
        CompletableFuture<AgentLauncher.RunningAgent> starting = agentStopped.thenApplyAsync(stopped -> {
            try {
                AgentLauncher.RunningAgent running = launcher.start(name(), host, new SimulatedHostClock(current.wallTime()));
                event(SimEvent.Kind.AGENT_STARTED, "boot id " + current.bootId());
                return running;
            } catch (Exception e) {
                throw new IllegalStateException("the agent on " + name() + " did not start: " + e.getMessage(), e);
            }
        }, starter);
        agent = starting;
        return starting.thenApply(running -> null);
    }

    /** Stops the agent and waits until it stopped (at the simulation's end). */
    public void stopAgent() {
        CompletableFuture<AgentLauncher.RunningAgent> starting = agent;
        agent = null;
        if (starting != null) {
            stop(starting);
        }
        agentStopped.join();
    }

    /**
     * Stops the agent on {@code stopper}, so that the platform thread goes on with other nodes (a wave of
     * reboot requests must not queue behind each other's agent stops); the next boot's agent starts after it.
     */
    private void stopAgentLater(Executor stopper) {
        CompletableFuture<AgentLauncher.RunningAgent> starting = agent;
        if (starting == null) {
            return;
        }
        agent = null;
        agentStopped = CompletableFuture.runAsync(() -> stop(starting), stopper).exceptionally(this::platformError);
    }

    private Void platformError(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        event(SimEvent.Kind.PLATFORM_ERROR, String.valueOf(cause.getMessage()));
        return null;
    }

    private void stop(CompletableFuture<AgentLauncher.RunningAgent> starting) {
        AgentLauncher.RunningAgent running;
        try {
            running = starting.join();
        } catch (CompletionException | CancellationException e) {
            return; // it never started: nothing to stop
        }
        try {
            running.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the agent on " + name() + " did not stop: " + e.getMessage(), e);
        }
        event(SimEvent.Kind.AGENT_STOPPED, "");
    }

    /**
     * The agent hangs, as a process stuck in a system call or a deadlock does: from now on it writes nothing,
     * neither its condition nor the expiry Lease, and serves nothing; the condition it last wrote stays on the
     * Node until something else changes it. The next boot starts a new agent.
     *
     * @return whether an agent was running to hang
     */
    public boolean hangAgent(Executor stopper) {
        if (agent == null || state != State.UP) {
            return false;
        }
        agentHung = true;
        stopAgentLater(stopper);
        return true;
    }

    /** Whether this boot's agent hung ({@link #hangAgent}). */
    public boolean agentHung() {
        return agentHung;
    }

    /**
     * The reboot request: the agent stops, containerd exits, the kubelet posts NotReady.
     *
     * @return whether the node will come back
     */
    public boolean rebootRequested(Kubelet kubelet, Executor stopper) {
        state = State.REBOOTING;
        stopAgentLater(stopper);
        host.stopCriContainerd(boot.criPid());
        host.removeContainerdSocket();
        loadedCredential = null;
        kubelet.post(name(), false).exceptionally(this::platformError);
        if (spec.reboot() == RebootBehaviour.NEVER_RETURNS) {
            state = State.GONE;
            event(SimEvent.Kind.NEVER_RETURNED, "the node does not come back");
            return false;
        }
        return true;
    }

    /**
     * The platform renders a new credential into the CRI config. Talos skips identical content; a node
     * that is down renders the new config when it boots.
     *
     * @return whether the files were rewritten on the running node
     */
    public boolean renderCredential(Credential next) {
        if (next.equals(credential)) {
            return false;
        }
        credential = next;
        if (state != State.UP) {
            return false;
        }
        host.rewriteRegistryAuth(registry, next);
        event(SimEvent.Kind.CONFIG_WRITTEN, "registry auth rewritten in place");
        return true;
    }

    /** containerd restarts on the running node (Talos >= 1.14 after a CRI config change): new pid, starts now. */
    public void restartContainerd(String expectedBootId) {
        if (state != State.UP || !boot.bootId().equals(expectedBootId)) {
            return;
        }
        host.stopCriContainerd(boot.criPid());
        long pid = pid();
        Instant now = Instant.now();
        long ticks = ProcFiles.ticks(Duration.between(boot.wallTime(), now));
        host.startCriContainerd(pid, ticks);
        host.bindContainerdSocket(pid, now.plus(SOCKET_AFTER_START)); // after the step: the true time
        loadedCredential = credentialAtContainerdStart();
        boot = boot.withCriContainerd(pid, ticks);
        event(SimEvent.Kind.CONTAINERD_RESTARTED, "pid " + pid);
    }

    /** containerd reads the config at its start — unless the scenario makes it load another credential every time. */
    private Credential credentialAtContainerdStart() {
        return spec.containerdCredentialSticks() ? spec.containerdCredential() : credential;
    }

    private long pid() {
        nextPid += 37;
        return nextPid;
    }

    private void event(SimEvent.Kind kind, String detail) {
        events.accept(new SimEvent(Instant.now(), name(), kind, detail));
    }
}
