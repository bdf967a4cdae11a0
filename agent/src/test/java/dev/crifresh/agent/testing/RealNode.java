package dev.crifresh.agent.testing;

import dev.crifresh.agent.host.BootClockSampler;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.loop.Evaluator;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A node's files under a test directory, stand-in containerd processes read through the real {@code /proc}, and
 * agents without memory that evaluate them: the shared fixture of the real-{@code /proc} evidence tests. Every
 * stand-in carries {@code --root <marker>} so that an agent matches this test's processes only.
 */
public final class RealNode implements AutoCloseable {
    public static final Path PROC = Path.of("/proc");
    public static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    /** Time between two stamps that must be told apart (file systems with coarse timestamps included). */
    public static final Duration SETTLE = Duration.ofMillis(300);

    private final Path host;
    private final TalosFiles files;
    private final String marker;
    private final List<FakeContainerd> processes = new ArrayList<>();

    /** @param host the node's root; {@code test} names the marker, to tell leftovers apart */
    public RealNode(Path host, String test) {
        this.host = host;
        this.files = new TalosFiles(host);
        this.marker = "/tmp/crifresh-" + test + "-" + UUID.randomUUID();
    }

    public Path host() {
        return host;
    }

    public TalosFiles files() {
        return files;
    }

    /** Matches this node's stand-in containerd only. */
    public ContainerdMatcher matcher() {
        return ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
    }

    /** A new agent (no memory of earlier evaluations) with the Talos watch globs. */
    public Evaluator agent() {
        return agent(WatchGlobs.TALOS_DEFAULT);
    }

    /** A new agent with these watch globs. */
    public Evaluator agent(List<String> globs) {
        return agent(new HostReader(PROC, host, globs, matcher(), HostClock.system(PROC), MountPolicy.DEFAULT));
    }

    /** A new agent with the Talos watch globs and this mount policy. */
    public Evaluator agent(MountPolicy mounts) {
        return agent(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher(), HostClock.system(PROC), mounts));
    }

    /** A new agent with the Talos watch globs that reads the files as this containerd generation does. */
    public Evaluator agent(dev.crifresh.common.registry.ContainerdReading.Generation generation) {
        return new Evaluator(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher(), HostClock.system(PROC), MountPolicy.DEFAULT),
                RuleSettings.defaults(), KEY, generation);
    }

    private static Evaluator agent(HostReader reader) {
        return new Evaluator(reader, RuleSettings.defaults(), KEY, null);
    }

    /** Talos's CRI containerd command line with this node's marker. */
    public List<String> talosCri() {
        return withMarker(FakeContainerd.TALOS_CRI);
    }

    public List<String> withMarker(List<String> argv) {
        List<String> marked = new ArrayList<>(argv);
        marked.addAll(List.of("--root", marker));
        return marked;
    }

    /** A stand-in started by the caller, stopped when this node closes. */
    public FakeContainerd track(FakeContainerd process) {
        processes.add(process);
        return process;
    }

    /** Stops the oldest stand-in still running (a reboot, or containerd restarted). */
    public void stopOldest() {
        stop(processes.get(0));
    }

    public void stop(FakeContainerd process) {
        processes.remove(process);
        process.close();
    }

    /** containerd started once some time passed after the files were written; returns once time moved past its start. */
    public FakeContainerd containerdAfterTheFiles() throws IOException {
        return containerdAfterTheFiles(() -> FakeContainerd.startServing(talosCri()));
    }

    /** Like {@link #containerdAfterTheFiles()}, with the caller's way of starting it. */
    public FakeContainerd containerdAfterTheFiles(Starter starter) throws IOException {
        waitPast(Instant.now().plus(SETTLE));
        FakeContainerd cri = track(starter.start());
        waitPast(realStart(cri).plus(SETTLE)); // whatever the test does next happens well after containerd started
        return cri;
    }

    /** How a test starts its stand-in. */
    public interface Starter {
        FakeContainerd start() throws IOException;
    }

    /** The stand-in's start on the wall clock, as the kernel recorded it (boot time + start ticks). */
    public static Instant realStart(FakeContainerd p) throws IOException {
        Instant boot = new BootClockSampler(HostClock.system(PROC), 5).sample().bootWallTime();
        return boot.plusMillis(p.startTicks() * 10);
    }

    public static void waitPast(Instant t) {
        Poll.until(Duration.ofSeconds(10), "wall clock past " + t, () -> Instant.now().isAfter(t));
    }

    /** The fingerprint an agent computes for the deploy bot's credential with {@code password}. */
    public static String fingerprint(String password) {
        return CredentialFingerprint.of(KEY, new RegistryAuth("ghcr.io", "deploy-bot", password, ""));
    }

    @Override
    public void close() {
        processes.forEach(FakeContainerd::close);
        processes.clear();
    }
}
