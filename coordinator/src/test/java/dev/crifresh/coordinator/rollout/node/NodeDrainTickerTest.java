package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The drain's timers on a {@link ManualTicker}: its deadline, its PDB backoff and its re-list, with no time passing. */
class NodeDrainTickerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ManualTicker ticker = new ManualTicker();
    private final List<Pod> pods = new ArrayList<>(List.of(new PodBuilder().withNewMetadata().withNamespace("shop").withName("db-0")
            .withUid("u1").addNewOwnerReference().withKind("ReplicaSet").withName("db").withController(true)
            .endOwnerReference().endMetadata().build()));
    private final List<String> lines = new ArrayList<>();
    private int evictions;
    private int lists;
    private PodOps.Eviction answer = PodOps.Eviction.BLOCKED;
    private String end;

    @Test
    void aPodABudgetKeepsIsRetriedWithBackoffUntilTheDeadline() {
        DrainRunner drain = drain();
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
        DrainRunner drain = drain();
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

    private DrainRunner drain() {
        RollPorts ports = DrainPorts.of(CoordinatorSettings.builder().drainTimeout(TIMEOUT).build(), new Pods(), ticker);
        return new DrainRunner(ports, "w1", () -> end == null, lines::add, () -> end = "drained", why -> end = "failed: " + why);
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
}
