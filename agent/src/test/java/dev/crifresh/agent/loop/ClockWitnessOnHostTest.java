package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.agent.testing.TestClock;
import dev.crifresh.agent.testing.UnixSockets;
import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.ClockWitness;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.mockapi.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * containerd's socket as the clock witness, read by the real {@link HostReader} from real files and a
 * real unix socket inode. Threat model: clock steps are inside it. The machine's own clock is never
 * changed: a step is shown by back-dating stamps ({@code Files.setLastModifiedTime}) and, where the
 * kernel's ctime would betray the back-dating, on a simulated host whose ctime is its mtime.
 */
class ClockWitnessOnHostTest {
    private static final Path PROC = Path.of("/proc");
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    private static final String SOCK = "/run/containerd/containerd.sock";

    @TempDir
    Path dir;
    private final List<FakeContainerd> processes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        processes.forEach(FakeContainerd::close);
    }

    @Test
    void onARealProcessTheSocketBoundAtItsStartAgreesWithTheProcDerivedStart() throws Exception {
        Path host = dir.resolve("host");
        TalosFiles files = new TalosFiles(host).writeAll("token-v1", null);
        Instant written = java.nio.file.Files.getLastModifiedTime(files.onHost(TalosFiles.CRI_TOML)).toInstant();
        Poll.until(Duration.ofSeconds(5), "past the writes", () -> Instant.now().isAfter(written.plusMillis(300)));
        String marker = "/tmp/crifresh-test-" + UUID.randomUUID();
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        // it binds its socket once its plugins are up: the listener in its namespace is the file under the host root
        FakeContainerd cri = FakeContainerd.startServingUnder(argv, host);
        processes.add(cri);
        ContainerdMatcher matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        Evaluator evaluator = new Evaluator(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher,
                HostClock.system(PROC), MountPolicy.DEFAULT), RuleSettings.defaults(), KEY, null);
        Poll.until(Duration.ofSeconds(5), "past the start", () -> Instant.now().isAfter(written.plusMillis(700)));

        Assessment a = evaluator.evaluate();

        Observation o = a.observation();
        assertNotNull(o.containerdSocket(), "the socket is read from containerd's --address");
        ClockWitness.Reading reading = ClockWitness.read(o.containerdSocket(), a.evaluation().containerdStartedAt(),
                o.clock().error());
        assertInstanceOf(ClockWitness.Agrees.class, reading, reading.describe());
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, a.evaluation().reason(), a.evaluation().message());
        assertEquals(Proof.ORDERING, a.evaluation().proof());
    }

    /** A host that booted {@code bootedAgo} ago (per its uptime), containerd started 6 s after that boot. */
    private record Node(Path host, TalosFiles files, TestClock clock, Instant boot, Evaluator evaluator) {
        Instant at(double secondsAfterBoot, Duration clockOffset) {
            return boot.plusMillis((long) (secondsAfterBoot * 1000)).plus(clockOffset);
        }
    }

    private Node node() throws Exception {
        Instant boot = Instant.now().minusSeconds(600);
        TestClock clock = new TestClock(boot);
        FakeProc proc = new FakeProc(dir.resolve("proc")).bootId("b00710c0-0000-4000-8000-000000000001")
                .uptime(Duration.ofSeconds(600)).process(321, FakeContainerd.TALOS_CRI, clock.ticksAt(boot.plusSeconds(6)));
        Path host = dir.resolve("sim-host");
        Evaluator evaluator = new Evaluator(new HostReader(proc.root(), host, WatchGlobs.TALOS_DEFAULT,
                ContainerdMatcher.talosCri(), clock, MountPolicy.DEFAULT), RuleSettings.defaults(), KEY, null);
        return new Node(host, new TalosFiles(host), clock, boot, evaluator);
    }

    @Test
    void anEpochClockSteppedForwardIsJudgedInTheSocketsClock() throws Exception {
        Node n = node();
        Duration epoch = Duration.between(n.boot(), Instant.EPOCH);
        n.files().writeAll("token-v1", n.at(3, epoch));
        UnixSockets.bindStamped(n.host().resolve(SOCK.substring(1)), n.at(6.04, epoch));

        Evaluation e = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, e.reason(), e.message());
        assertEquals(Proof.SOCKET_ORDERING, e.proof());
        assertTrue(e.message().contains("stepped forward"), e.message());

        // The same node without its socket: today's rules, the config predates the boot.
        java.nio.file.Files.delete(n.host().resolve(SOCK.substring(1)));
        Evaluation without = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CLOCK_ANOMALY, without.reason(), without.message());
    }

    @Test
    void aConfigWrittenAfterTheStartOfASlowClockIsStaleThoughItLooksOlderThanTheStart() throws Exception {
        Node n = node();
        Duration slow = Duration.ofSeconds(-5);
        n.files().writeAll("token-v1", n.at(8, slow)); // after containerd's start at 6 s, before the step
        UnixSockets.bindStamped(n.host().resolve(SOCK.substring(1)), n.at(6.04, slow));

        Evaluation e = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, e.reason(), e.message());

        // Without the witness the same stamps prove a false fresh: the write looks 3 s before the start.
        java.nio.file.Files.delete(n.host().resolve(SOCK.substring(1)));
        Evaluation without = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, without.reason(), without.message());
    }

    @Test
    void aClockAnHourFastSteppedBackIsUnknown() throws Exception {
        Node n = node();
        Duration fast = Duration.ofHours(1);
        n.files().writeAll("token-v1", n.at(3, fast)); // before the step: an hour ahead
        UnixSockets.bindStamped(n.host().resolve(SOCK.substring(1)), n.at(6.04, fast));

        Evaluation e = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CLOCK_STEPPED, e.reason(), e.message());
    }

    @Test
    void aNonSocketAtTheAddressIsNoWitness() throws Exception {
        Node n = node();
        Duration epoch = Duration.between(n.boot(), Instant.EPOCH);
        n.files().writeAll("token-v1", n.at(3, epoch));
        n.files().write(SOCK, "", n.at(6.04, epoch)); // a regular file stamped like the socket would be

        Evaluation e = n.evaluator().evaluate().evaluation();
        assertEquals(Reason.CLOCK_ANOMALY, e.reason(), e.message());
    }

    @Test
    void theAgentsBootEstimateIsWhatTheWitnessIsComparedWith() throws Exception {
        Node n = node();
        n.files().writeAll("token-v1", n.at(3, Duration.ZERO));
        UnixSockets.bindStamped(n.host().resolve(SOCK.substring(1)), n.at(6.04, Duration.ZERO));
        Assessment a = n.evaluator().evaluate();
        BootClock clock = a.observation().clock();
        assertInstanceOf(ClockWitness.Agrees.class, ClockWitness.read(a.observation().containerdSocket(),
                a.evaluation().containerdStartedAt(), clock.error()));
        assertEquals(Proof.ORDERING, a.evaluation().proof());
    }
}
