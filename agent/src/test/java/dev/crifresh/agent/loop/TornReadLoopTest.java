package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.ChangeTimes;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.agent.testing.TestClock;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.Verdict;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop reads the node again, on its Vert.x timer, when an evaluation caught a config file mid-write, and hands on
 * only a settled evaluation, or the torn one (unknown) once the re-reads are spent. Real files and a fake /proc; the
 * write is a ctime that moves between every two looks at the file for as long as the test says.
 */
class TornReadLoopTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Looks at cri.toml's ctime in one torn evaluation: one for the change stamps, two for each of the 3 reads. */
    private static final int LOOKS_PER_EVALUATION = 7;

    @TempDir
    Path dir;
    private Vertx vertx;
    private TestClock clock;
    private final AtomicInteger looks = new AtomicInteger();
    private final BlockingQueue<Assessment> handedOn = new LinkedBlockingQueue<>();
    private AgentLoop loop;

    @BeforeEach
    void setUp() throws Exception {
        vertx = Vertx.vertx();
        clock = new TestClock(Instant.now().minusSeconds(1000));
        Instant containerdStart = clock.boot().plusSeconds(500);
        new FakeProc(dir.resolve("proc")).bootId("6f1e0c0a-0000-4000-8000-000000000003").uptime(Duration.ofSeconds(1000))
                .process(100, FakeContainerd.TALOS_CRI, clock.ticksAt(containerdStart));
        new TalosFiles(dir.resolve("host")).writeAll("token-v1", containerdStart.minusSeconds(100));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (loop != null) {
            loop.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aFileThatSettlesIsReadAgainAndOnlyTheSettledEvaluationIsHandedOn() throws Exception {
        start(2 * LOOKS_PER_EVALUATION + 6); // torn in the first three evaluations

        Assessment a = next();
        assertEquals(List.of(), a.torn());
        assertEquals(Verdict.FRESH, a.evaluation().verdict(), a.evaluation().message());
        assertTrue(looks.get() >= 3 * LOOKS_PER_EVALUATION, "read three times: " + looks.get());
        stopLoop();
        assertEquals(List.of(), List.copyOf(handedOn), "a torn evaluation was handed on");
    }

    @Test
    void aFileThatKeepsChangingIsHandedOnUnreadableOnceTheReReadsAreSpent() throws Exception {
        start(Integer.MAX_VALUE);

        Assessment a = next();
        assertEquals(List.of(TalosFiles.CRI_TOML), a.torn());
        assertEquals(Reason.CONFIG_UNREADABLE, a.evaluation().reason(), a.evaluation().message());
        assertEquals(Verdict.UNKNOWN, a.evaluation().verdict());
        assertTrue(a.evaluation().message().contains("kept changing"), a.evaluation().message());
        assertEquals((1 + Reread.REREADS) * LOOKS_PER_EVALUATION, looks.get(), "one evaluation and each re-read");
        stopLoop();
        assertEquals(List.of(), List.copyOf(handedOn), "more than the last evaluation was handed on");
    }

    /** Starts the loop on a host whose cri.toml's ctime moves at each of the first {@code moving} looks. */
    private void start(int moving) throws Exception {
        ChangeTimes writing = p -> p.endsWith("conf.d/cri.toml") && looks.incrementAndGet() <= moving
                ? Instant.EPOCH.plusNanos(looks.get()) : ChangeTimes.MTIME.ctime(p);
        HostClock host = new HostClock() {
            @Override
            public Instant wallNow() {
                return clock.wallNow();
            }

            @Override
            public Duration uptime() {
                return clock.uptime();
            }

            @Override
            public ChangeTimes changeTimes() {
                return new ChangeTimes() {
                    @Override
                    public Instant ctime(Path onHost) throws java.io.IOException {
                        return writing.ctime(onHost);
                    }

                    @Override
                    public boolean stampsDirectories() {
                        return false;
                    }
                };
            }
        };
        HostReader reader = new HostReader(dir.resolve("proc"), dir.resolve("host"), WatchGlobs.TALOS_DEFAULT,
                ContainerdMatcher.talosCri(), host, MountPolicy.DEFAULT);
        Evaluator evaluator = new Evaluator(reader, RuleSettings.defaults(), null, null);
        loop = new AgentLoop(vertx, vertx.getOrCreateContext(), new Settings(), evaluator,
                (assessment, heartbeat, change) -> handedOn.add(assessment));
        loop.start().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private Assessment next() throws InterruptedException {
        Assessment a = handedOn.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(a, "nothing handed on within " + WAIT);
        return a;
    }

    /** Stops the loop: an evaluation in flight completes first, so nothing is handed on after it. */
    private void stopLoop() throws Exception {
        loop.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        loop = null;
    }

    /** No heartbeat or poll within a test: the start and the re-reads are the only evaluations. */
    private static final class Settings implements LoopSettings {
        @Override
        public String nodeName() {
            return "w1";
        }

        @Override
        public ContainerdMatcher matcher() {
            return ContainerdMatcher.talosCri();
        }

        @Override
        public Duration heartbeat() {
            return Duration.ofHours(1);
        }

        @Override
        public Duration procPoll() {
            return Duration.ofHours(1);
        }

        @Override
        public Duration debounce() {
            return Duration.ofMillis(100);
        }
    }
}
