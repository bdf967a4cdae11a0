package dev.crifresh.sim.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import dev.crifresh.mockapi.MockApiDispatcher;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MockApiTest {
    private Vertx vertx;
    private MockApi api;

    @BeforeEach
    void start() {
        vertx = UnhandledErrors.on(Vertx.vertx());
        api = MockApi.start(vertx);
    }

    @AfterEach
    void stop() {
        api.close();
        vertx.close().await();
    }

    private void node(String name) {
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withUid("u-1").endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition()
                .withNewNodeInfo().withBootID("b1").endNodeInfo().endStatus().build()).create();
    }

    @Test
    void crudWithJsonPatchOnStatusAndServerAssignedUids() {
        node("n1");
        api.client().nodes().withName("n1").subresource("status").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"test\",\"path\":\"/status/conditions/0/type\",\"value\":\"Ready\"},"
                        + "{\"op\":\"replace\",\"path\":\"/status/conditions/0/status\",\"value\":\"False\"}]");
        Node n = api.client().nodes().withName("n1").get();
        assertEquals("False", n.getStatus().getConditions().get(0).getStatus());
        assertNotEquals("u-1", n.getMetadata().getUid(), "like a real API server, the mock assigns the UID");
    }

    /**
     * Watches closed while events stream to them must never stall the server or lose a request (fabric8's
     * own dispatcher can block its event loop for 30 s here; see {@link MockApiDispatcher}).
     */
    @Test
    void closingWatchesWhileEventsFlowNeverStallsTheServer() throws Exception {
        node("busy");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger patches = new AtomicInteger();
        AtomicReference<Duration> slowestPatch = new AtomicReference<>(Duration.ZERO);
        List<String> failures = new CopyOnWriteArrayList<>();
        Thread writer = new Thread(() -> {
            while (running.get()) {
                Instant before = Instant.now();
                try {
                    api.client().nodes().withName("busy").subresource("status").patch(PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"replace\",\"path\":\"/status/nodeInfo/bootID\",\"value\":\"b"
                                    + patches.incrementAndGet() + "\"}]");
                } catch (RuntimeException e) {
                    failures.add(e.getMessage());
                }
                Duration took = Duration.between(before, Instant.now());
                slowestPatch.accumulateAndGet(took, (a, b) -> a.compareTo(b) >= 0 ? a : b);
            }
        });
        writer.start();
        Duration slowestGet = Duration.ZERO;
        try {
            for (int i = 0; i < 40; i++) {
                Watch watch = api.client().nodes().withName("busy").watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Node resource) {
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                });
                Thread.sleep(5);
                watch.close();
                Instant before = Instant.now();
                api.client().nodes().withName("busy").get();
                Duration took = Duration.between(before, Instant.now());
                slowestGet = took.compareTo(slowestGet) > 0 ? took : slowestGet;
            }
        } finally {
            running.set(false);
            writer.join(15_000);
        }
        assertTrue(patches.get() > 40, "events were flowing: " + patches.get());
        assertEquals(List.of(), failures);
        assertTrue(slowestGet.compareTo(Duration.ofSeconds(5)) < 0, "a GET took " + slowestGet);
        assertTrue(slowestPatch.get().compareTo(Duration.ofSeconds(5)) < 0, "a PATCH took " + slowestPatch.get());
    }
}
