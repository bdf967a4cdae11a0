package dev.crifresh.coordinator.rollout.node;

import io.fabric8.kubernetes.api.model.Node;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.gate.NodeGates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The drain's timers on a {@link ManualTicker}: its deadline, its PDB backoff and its re-list, with no time passing. */
class NodeDrainTickerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ManualTicker ticker = new ManualTicker();
    private final List<Pod> pods = new ArrayList<>(List.of(new PodBuilder().withNewMetadata().withNamespace("shop").withName("db-0")
            .withUid("u1").endMetadata().build()));
    private final List<String> lines = new ArrayList<>();
    private int evictions;
    private int lists;
    private PodOps.Eviction answer = PodOps.Eviction.BLOCKED;
    private String end;

    @Test
    void aPodABudgetKeepsIsRetriedWithBackoffUntilTheDeadline() {
        NodeDrain drain = drain();
        drain.start();
        assertEquals(1, evictions);
        ticker.advance(Duration.ofSeconds(2));
        assertTrue(evictions > 1, "the refused eviction is retried on the ticker");
        assertNull(end);
        ticker.advance(TIMEOUT);
        assertEquals("failed: drain did not finish within 10s: shop/db-0 (eviction refused by a PodDisruptionBudget)", end);
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    @Test
    void withoutAWatchTheDrainListsAgainUntilThePodsAreGone() {
        answer = PodOps.Eviction.EVICTED;
        NodeDrain drain = drain();
        drain.start();
        assertEquals(1, evictions);
        ticker.advance(Duration.ofMillis(500));
        int listed = lists;
        pods.clear();
        ticker.advance(Duration.ofMillis(500));
        assertTrue(lists > listed);
        assertEquals("drained", end);
        assertTrue(lines.contains("drained"), lines.toString());
        drain.stop();
        assertEquals(0, ticker.pending());
    }

    private NodeDrain drain() {
        Host host = new Host(CoordinatorSettings.defaults().withDrainTimeout(TIMEOUT), new Pods(), ticker);
        return new NodeDrain(host, "w1", () -> end == null, lines::add, () -> end = "drained", why -> end = "failed: " + why);
    }

    /** The node's pods in memory; the watch cannot be started. */
    private final class Pods implements PodOps {
        @Override
        public PodOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        @Override
        public Future<List<Pod>> podsOn(String node) {
            lists++;
            return Future.succeededFuture(List.copyOf(pods));
        }

        @Override
        public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
            return Future.failedFuture("watch refused");
        }

        @Override
        public Future<Eviction> evict(String namespace, String name) {
            evictions++;
            return Future.succeededFuture(answer);
        }
    }

    private record Host(CoordinatorSettings settings, PodOps pods, Ticker ticker) implements RollHost {
        public Vertx vertx() {
            throw new AssertionError("the drain needs no Vert.x");
        }

        public NodeOps nodes() {
            throw new UnsupportedOperationException();
        }

        public RebootDriver driver() {
            throw new UnsupportedOperationException();
        }

        public NodeFacts facts(String name) {
            throw new UnsupportedOperationException();
        }

        public Classification classifyNow(String name) {
            throw new UnsupportedOperationException();
        }

        public boolean stopping() {
            return false;
        }

        public Fence fence() {
            return Fence.open();
        }

        public ApiRetry retry() {
            return new ApiRetry(ticker, fence());
        }

        public int budget() {
            return 1;
        }

        public java.util.Set<String> inFlight() {
            return java.util.Set.of();
        }

        public void progress(NodeRunner roll, String text) {
        }

        public void rebootRequested(NodeRunner roll) {
        }

        public void finished(NodeRunner roll) {
        }

        @Override
        public NodeGates gates() {
            throw new AssertionError("a drain passes no gate");
        }

        @Override
        public List<NodeFacts> clusterView() {
            return List.of();
        }

        @Override
        public Node cached(String name) {
            return null;
        }

        @Override
        public Future<Void> reboot(Node node) {
            throw new AssertionError("this test requests no reboot");
        }

        @Override
        public java.time.Clock clock() {
            return java.time.Clock.systemUTC();
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public Future<List<NodeFacts>> freshNodeList() {
            return retry().call(() -> nodes().listAll()).map(NodeFacts::all);
        }

        @Override
        public void progress(NodeRunner roll, ProgressListener.Level level, String text) {
            progress(roll, text);
        }

        @Override
        public void event(String node, EventReason reason, String message) {
        }

        @Override
        public Future<Void> silence(String node) {
            return Future.succeededFuture();
        }
    }
}
