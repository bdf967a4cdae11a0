package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.fixture.Evictions;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drain on its own, against the mock API server with the real {@link Fabric8PodOps}: it ends on the
 * watch event of the last evicted pod's deletion, without needing a re-list; it falls back to listing when
 * the watch cannot start; its slow re-list catches what a silent watch misses.
 */
class NodeDrainTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private ApiFixture cluster;
    private Evictions evictions;
    private Vertx vertx;
    private Context context;

    @BeforeEach
    void start() {
        cluster = ApiFixture.start();
        evictions = new Evictions(cluster, 100);
        vertx = cluster.vertx;
        context = vertx.getOrCreateContext();
    }

    @AfterEach
    void stop() {
        evictions.close();
        cluster.close();
    }

    @Test
    void endsOnTheWatchEventOfTheLastEvictedPodWithoutRelisting() throws Exception {
        cluster.addPod("shop", "web-1", "w1");
        cluster.addPod("shop", "web-2", "w1");
        cluster.addPod("shop", "other", "w2");
        cluster.acceptEvictions("shop", "web-1", evictions);
        cluster.acceptEvictions("shop", "web-2", evictions);
        // Listing never answers: only the watch (selected by spec.nodeName, as in production) can tell the
        // drain that the pods are gone.
        Pods pods = new Pods(new Fabric8PodOps(context, cluster.client, true)).listHangs();

        Drain drain = drain(pods, Duration.ofMinutes(10));

        assertEquals("drained", drain.awaitEnd());
        assertEquals(List.of("shop/web-1", "shop/web-2"), evictions.accepted().stream().sorted().toList());
        assertTrue(drain.lines.contains("draining: 2 pods left"), drain.lines.toString());
        assertTrue(cluster.podsOn("w1").isEmpty());
        assertEquals(1, cluster.podsOn("w2").size(), "a pod on another node was touched");
        assertEquals(1, pods.watchesClosed.get(), "the pod watch was not closed once drained");
    }

    @Test
    void withoutAWatchItListsUntilThePodsAreGone() throws Exception {
        cluster.addPod("shop", "web-1", "w1");
        cluster.acceptEvictions("shop", "web-1", evictions);
        Pods pods = new Pods(new Fabric8PodOps(context, cluster.client, false)).watchFails();

        Drain drain = drain(pods, Duration.ofSeconds(20));

        assertEquals("drained", drain.awaitEnd());
        assertTrue(drain.lines.stream().anyMatch(l -> l.startsWith("cannot watch its pods (watch refused)")), drain.lines.toString());
        assertTrue(pods.lists.get() >= 2, "the drain did not list again: " + pods.lists.get());
        assertTrue(cluster.podsOn("w1").isEmpty());
    }

    @Test
    void theSafetyNetRelistCatchesWhatASilentWatchMissed() throws Exception {
        cluster.addPod("shop", "web-1", "w1");
        cluster.acceptEvictions("shop", "web-1", evictions);
        // A watch that keeps the first list and never reports a change, as a silently broken one would.
        Pods pods = new Pods(new Fabric8PodOps(context, cluster.client, false)).watchSilent();

        Drain drain = drain(pods, Duration.ofSeconds(4));

        assertEquals("drained", drain.awaitEnd());
        assertTrue(pods.lists.get() >= 1, "drained without a re-list, though the watch reported nothing");
    }

    @Test
    void aPodThatOutlivesTheTimeoutFailsTheDrainNamingIt() throws Exception {
        cluster.addPod("shop", "db-0", "w1");
        cluster.refuseEvictionsAlways("shop", "db-0");
        Pods pods = new Pods(new Fabric8PodOps(context, cluster.client, false));

        Drain drain = drain(pods, Duration.ofMillis(1500));

        String end = drain.awaitEnd();
        assertTrue(end.startsWith("failed: drain did not finish within"), end);
        assertTrue(end.contains("shop/db-0 (eviction refused by a PodDisruptionBudget)"), end);
        assertTrue(cluster.refusals() >= 2, "the refused eviction was not retried: " + cluster.refusals());
        assertEquals(1, pods.watchesClosed.get(), "the pod watch was not closed after the failure");
    }

    // ---- fixture -----------------------------------------------------------------------------------

    private Drain drain(PodOps pods, Duration timeout) {
        Drain drain = new Drain();
        CoordinatorSettings settings = Harness.fastSettings().toBuilder().drainTimeout(timeout).build();
        RollPorts ports = DrainPorts.of(settings, pods, Ticker.of(vertx));
        context.runOnContext(v -> {
            DrainRunner d = new DrainRunner(ports, "w1", () -> !drain.end.isDone(), drain.lines::add,
                    () -> drain.end.complete("drained"), why -> drain.end.complete("failed: " + why));
            d.start();
        });
        return drain;
    }

    private static final class Drain {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final CompletableFuture<String> end = new CompletableFuture<>();

        String awaitEnd() throws Exception {
            return end.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The real pod operations, with listing or watching made to fail, hang or go silent, and counted. */
    private static final class Pods implements PodOps {
        @Override
        public PodOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        private final PodOps real;
        final AtomicInteger lists = new AtomicInteger();
        final AtomicInteger watchesClosed = new AtomicInteger();
        private boolean listHangs;
        private boolean watchFails;
        private boolean watchSilent;

        Pods(PodOps real) {
            this.real = real;
        }

        Pods listHangs() {
            listHangs = true;
            return this;
        }

        Pods watchFails() {
            watchFails = true;
            return this;
        }

        Pods watchSilent() {
            watchSilent = true;
            return this;
        }

        @Override
        public Future<List<Pod>> podsOn(String node) {
            lists.incrementAndGet();
            return listHangs ? Promise.<List<Pod>>promise().future() : real.podsOn(node);
        }

        @Override
        public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
            if (watchFails) {
                return Future.failedFuture("watch refused");
            }
            return real.watchPodsOn(node, watchSilent ? () -> { } : changed).map(w -> {
                List<Pod> first = w.pods();
                return new PodWatch() {
                    @Override
                    public List<Pod> pods() {
                        return watchSilent ? first : w.pods();
                    }

                    @Override
                    public void close() {
                        watchesClosed.incrementAndGet();
                        w.close();
                    }
                };
            });
        }

        @Override
        public Future<Eviction> evict(String namespace, String name) {
            return real.evict(namespace, name);
        }
    }
}
