package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.introspect.IntrospectionCheck;
import dev.crifresh.agent.introspect.IntrospectionClient;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeIntrospection;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.mockapi.testing.Poll;
import io.vertx.core.Vertx;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The introspection check through the agent's evaluation on real processes and files (a fake containerd process with
 * Talos' command line, read through the real /proc): the answer on the socket named by its {@code --address}
 * (under the host root) reaches the rules, and a socket that never answers costs one bounded evaluation, never a
 * hang. Threat-model side: defended (a broken or foreign listener on containerd's socket; a rotation).
 */
class IntrospectionEvaluatorTest {
    private static final Path PROC = Path.of("/proc");
    private static final Duration DEADLINE = Duration.ofMillis(500);

    @TempDir
    Path host;
    private Vertx vertx;
    private TalosFiles files;
    private Evaluator evaluator;
    private Path socket;
    private String marker;
    private final List<FakeContainerd> processes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        vertx = Vertx.vertx();
        files = new TalosFiles(host);
        marker = "/tmp/crifresh-test-" + UUID.randomUUID();
        ContainerdMatcher matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        evaluator = new Evaluator(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher, HostClock.system(PROC), MountPolicy.DEFAULT),
                RuleSettings.defaults(), null, null, null,
                new IntrospectionCheck(new IntrospectionClient(vertx, DEADLINE), host));
        socket = host.resolve("run/containerd/containerd.sock");
    }

    @AfterEach
    void tearDown() throws Exception {
        processes.forEach(FakeContainerd::close);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Files rendered, then (300 ms later) containerd started, as on a node. */
    private FakeContainerd bootedNode() throws Exception {
        files.writeAll("token-v1", null);
        waitPast(Instant.now().plusMillis(300));
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        FakeContainerd cri = FakeContainerd.startServing(argv);
        processes.add(cri);
        return cri;
    }

    private static void waitPast(Instant t) {
        Poll.until(Duration.ofSeconds(5), "wall clock past " + t, () -> Instant.now().isAfter(t));
    }

    @Test
    void anAnswerThatAgreesLeavesTheNodeFreshAndARotationAfterItIsStale() throws Exception {
        FakeContainerd cri = bootedNode();
        Instant loaded = Instant.now();
        FakeIntrospection.serve(vertx, socket, FakeIntrospection.grpc(FakeIntrospection.answer(cri.pid(), loaded), "0"));
        waitPast(Instant.now().plusMillis(300));

        Assessment fresh = evaluator.evaluate();
        assertEquals(Proof.ORDERING, fresh.evaluation().proof(), fresh.evaluation().message());
        assertEquals(cri.pid(), assertInstanceOf(IntrospectionAnswer.Answered.class,
                fresh.observation().introspection().answer()).pid());
        assertEquals(List.of("ghcr.io"), fresh.observation().introspection().credentialHosts());

        files.rotate("token-v2");
        Evaluation stale = evaluator.evaluate().evaluation();
        assertEquals(Reason.CONFIG_CHANGED_AFTER_RUNTIME_LOAD, stale.reason(), stale.message());
    }

    @Test
    void anotherPidOnTheSocketIsUnknown() throws Exception {
        FakeContainerd cri = bootedNode();
        FakeIntrospection.serve(vertx, socket,
                FakeIntrospection.grpc(FakeIntrospection.answer(cri.pid() + 100_000, Instant.now()), "0"));
        Evaluation e = evaluator.evaluate().evaluation();
        assertEquals(Reason.INTROSPECTION_OTHER_PROCESS, e.reason(), e.message());
    }

    @Test
    void aSocketThatNeverAnswersCostsOneBoundedEvaluation() throws Exception {
        bootedNode();
        try (ServerSocketChannel silent = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            java.nio.file.Files.createDirectories(socket.getParent());
            silent.bind(UnixDomainSocketAddress.of(socket));
            long t0 = System.nanoTime();
            Evaluation e = evaluator.evaluate().evaluation();
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertEquals(Reason.INTROSPECTION_UNAVAILABLE, e.reason(), e.message());
            assertTrue(e.message().contains("/run/containerd/containerd.sock"), e.message());
            assertTrue(took.compareTo(DEADLINE.plusSeconds(2)) < 0, "bounded: " + took);
        }
    }
}
