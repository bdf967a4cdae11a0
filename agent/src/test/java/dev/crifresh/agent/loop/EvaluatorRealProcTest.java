package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.BootClockSampler;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.mockapi.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evidence end to end on real kernel data: real processes read through the real {@code /proc}, real
 * boot id and uptime, real config files with real mtimes. Each test marks its processes with a unique
 * {@code --root} pair (and matches on it) so fake containerds of other builds on this machine do not
 * make the count ambiguous; the Talos pairs are matched exactly as in production.
 */
class EvaluatorRealProcTest {
    private static final Path PROC = Path.of("/proc");
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    @TempDir
    Path host;
    private TalosFiles files;
    private String marker;
    private ContainerdMatcher matcher;
    private Evaluator evaluator;
    private final List<FakeContainerd> processes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        files = new TalosFiles(host);
        marker = "/tmp/crifresh-test-" + UUID.randomUUID();
        matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        evaluator = new Evaluator(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher, HostClock.system(PROC), MountPolicy.DEFAULT),
                RuleSettings.defaults(), KEY, null);
    }

    @AfterEach
    void tearDown() {
        processes.forEach(FakeContainerd::close);
    }

    private FakeContainerd start(List<String> talosArgv) throws Exception {
        List<String> argv = new ArrayList<>(talosArgv);
        argv.addAll(List.of("--root", marker));
        // Talos' CRI containerd serves once started (it loaded its config); the system one is never matched
        FakeContainerd p = talosArgv.equals(FakeContainerd.TALOS_SYSTEM) ? FakeContainerd.start(argv)
                : FakeContainerd.startServing(argv);
        processes.add(p);
        return p;
    }

    /** A CRI containerd that has not bound its socket: still loading its config, or refusing it. */
    private FakeContainerd startNotServing() throws Exception {
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        FakeContainerd p = FakeContainerd.start(argv);
        processes.add(p);
        return p;
    }

    /** The process's real start on the wall clock: boot time (from the real uptime) + its start ticks. */
    /** The honest order: some time after the config was rendered, containerd starts. */
    private FakeContainerd startAfterTheFiles() throws Exception {
        waitPast(Instant.now().plusMillis(300));
        FakeContainerd cri = start(FakeContainerd.TALOS_CRI);
        waitPast(realStart(cri).plusMillis(300));
        return cri;
    }

    private static Instant realStart(FakeContainerd p) throws Exception {
        Instant boot = new BootClockSampler(HostClock.system(PROC), 5).sample().bootWallTime();
        return boot.plusMillis(p.startTicks() * 10);
    }

    private static String fingerprint(String password) {
        return CredentialFingerprint.of(KEY, new RegistryAuth("ghcr.io", "deploy-bot", password, ""));
    }

    private Evaluation evaluate() {
        return evaluator.evaluate().evaluation();
    }

    private static void waitPast(Instant t) {
        Poll.until(Duration.ofSeconds(5), "wall clock past " + t, () -> Instant.now().isAfter(t));
    }

    /**
     * gens' F1 on real processes: a containerd with Talos' command line, started after the files, that has not
     * bound its socket — it is still loading its config, or refused it and is about to exit (a platform restarts
     * it) — is unknown, never fresh; once it listens at its address, ordering proves it fresh. Ordinary platform
     * behaviour (a containerd that refuses a config it cannot load), inside the threat model.
     */
    @Test
    void aContainerdThatHasNotBoundItsSocketIsUnknownUntilItListens() throws Exception {
        files.writeAll("token-v1", null);
        waitPast(Instant.now().plusMillis(300));
        FakeContainerd loading = startNotServing();
        waitPast(realStart(loading).plusMillis(300));

        Evaluation starting = evaluate();
        assertEquals(Reason.CONTAINERD_NOT_SERVING, starting.reason(), starting.message());
        assertEquals(Verdict.UNKNOWN, starting.verdict());
        assertEquals("containerd (pid " + loading.pid() + ") has not bound its socket /run/containerd/containerd.sock:"
                + " it has not finished loading its config, or refused it (no socket is bound there)", starting.message());

        loading.serve(); // it finished loading its config and bound its socket
        Evaluation serving = evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, serving.reason(), serving.message());
        assertEquals(loading.pid(), serving.containerd().pid());

        // it exits; the platform restarts it, and the new one refuses the config again: its predecessor's socket
        // closed with it, so nothing listens in the new one's namespace
        loading.close();
        FakeContainerd refusing = startNotServing();
        Evaluation again = evaluate();
        assertEquals(Reason.CONTAINERD_NOT_SERVING, again.reason(), again.message());
        assertEquals(refusing.pid(), again.containerd().pid());
    }

    @Test
    void freshStaleFreshAgainAndRule4OnRealProcesses() throws Exception {
        start(FakeContainerd.TALOS_SYSTEM); // always running, never matched
        files.writeAll("token-v1", null); // rendered first (real mtime and ctime), then containerd starts
        FakeContainerd cri = startAfterTheFiles();

        Assessment first = evaluator.evaluate();
        Evaluation fresh = first.evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, fresh.reason(), fresh.message());
        assertEquals(Proof.ORDERING, fresh.proof());
        assertEquals(cri.pid(), fresh.containerd().pid());
        assertEquals(cri.startTicks(), fresh.containerd().startTicks());
        assertEquals(first.observation().bootId(), Files.readString(PROC.resolve("sys/kernel/random/boot_id")).trim());
        assertEquals(fingerprint("token-v1"), first.registries().get("ghcr.io"));
        assertEquals(3, first.observation().files().size());

        files.rotate("token-v2"); // real mtimes: now, after containerd started
        Assessment rotated = evaluator.evaluate();
        Evaluation stale = rotated.evaluation();
        assertEquals(Verdict.STALE, stale.verdict(), stale.message());
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, stale.reason());
        assertEquals(fingerprint("token-v2"), rotated.registries().get("ghcr.io"));
        assertNotEquals(fresh.configDigest(), stale.configDigest());

        Instant newestWrite = Files.getLastModifiedTime(files.onHost(TalosFiles.CRI_TOML)).toInstant();
        waitPast(newestWrite.plusMillis(300)); // a reboot takes seconds; keep the restart clear of the margin
        cri.close();
        FakeContainerd restarted = start(FakeContainerd.TALOS_CRI);
        Evaluation again = evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, again.reason(), again.message());
        assertEquals(restarted.pid(), again.containerd().pid());

        waitPast(realStart(restarted).plusMillis(300));
        files.write(TalosFiles.CRI_TOML, TalosFiles.criToml("token-v2"), null); // same bytes, new mtime
        assertTrue(Files.getLastModifiedTime(files.onHost(TalosFiles.CRI_TOML)).toInstant()
                .isAfter(realStart(restarted)));
        Evaluation sameBytes = evaluate();
        assertEquals(Reason.CONFIG_UNCHANGED_SINCE_LOAD, sameBytes.reason(), sameBytes.message());
        assertEquals(Proof.CONTENT, sameBytes.proof());
        assertEquals(again.configDigest(), sameBytes.configDigest());
    }

    @Test
    void aChangeSeenLiveStaysStaleEvenIfTheClocksWouldSayFresh() throws Exception {
        files.writeAll("token-v1", null);
        FakeContainerd cri = startAfterTheFiles();
        Instant before = realStart(cri).minusSeconds(5);
        assertEquals(Verdict.FRESH, evaluate().verdict());
        // A write whose mtime claims to predate containerd (as after a forward clock step, or touch -d):
        // rule 6 and the ctime both say stale.
        files.writeAll("token-v2", before.plusSeconds(1));
        Evaluation e = evaluate();
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, e.reason(), e.message());
        // Writing back what containerd loaded makes it fresh again by content.
        files.writeAll("token-v1", before.plusSeconds(2));
        assertEquals(Reason.CONFIG_UNCHANGED_SINCE_LOAD, evaluate().reason());
    }

    @Test
    void notFoundAndAmbiguous() throws Exception {
        start(FakeContainerd.TALOS_SYSTEM);
        files.writeAll("token-v1", Instant.now().minusSeconds(60));
        Evaluation none = evaluate();
        assertEquals(Reason.CONTAINERD_NOT_FOUND, none.reason(), none.message());
        assertEquals(Verdict.UNKNOWN, none.verdict());

        FakeContainerd a = start(FakeContainerd.TALOS_CRI);
        FakeContainerd b = start(FakeContainerd.TALOS_CRI);
        Evaluation two = evaluate();
        assertEquals(Reason.CONTAINERD_AMBIGUOUS, two.reason(), two.message());
        assertTrue(two.message().contains(Long.toString(a.pid())) && two.message().contains(Long.toString(b.pid())));
        b.close();
        assertEquals(a.pid(), evaluate().containerd().pid());
    }

    @Test
    void unparsableTomlIsUnknownEvenWhenTheOrderingIsFine() throws Exception {
        files.writeAll("token-v1", null);
        files.write(TalosFiles.CRI_TOML, "[plugins\npassword = 'token-v1'", null);
        startAfterTheFiles();
        Assessment a = evaluator.evaluate();
        assertEquals(Reason.CONFIG_UNREADABLE, a.evaluation().reason(), a.evaluation().message());
        assertTrue(a.evaluation().message().contains(TalosFiles.CRI_TOML), a.evaluation().message());
        assertFalse(a.evaluation().message().contains("token-v1"));
        assertTrue(a.registries().isEmpty() || !a.registries().containsValue("token-v1"));
    }

    @Test
    void aMissingWatchedFileIsUnknown() throws Exception {
        FakeContainerd cri = start(FakeContainerd.TALOS_CRI);
        files.writeAll("token-v1", realStart(cri).minusSeconds(2));
        Files.delete(files.onHost(TalosFiles.CONTAINERD_TOML));
        Evaluation e = evaluate();
        assertEquals(Reason.CONFIG_UNREADABLE, e.reason());
        assertTrue(e.message().contains("no such file"), e.message());
    }
}
