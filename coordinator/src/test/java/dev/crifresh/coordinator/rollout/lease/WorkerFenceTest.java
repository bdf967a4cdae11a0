package dev.crifresh.coordinator.rollout.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.kube.EventOps;
import dev.crifresh.coordinator.kube.Fabric8EventOps;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.mockapi.fault.Exchange;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fence is checked again on the worker thread right before a blocking write is sent. The fence here is open
 * when asked on the event loop (where the call is queued) and closed when asked on a worker (where it runs): the
 * Lease hold ending between queueing and sending, which SplitBrainTest once caught as a PATCH landing after its
 * run ended. Threat model: fencing against a second run (an operator's ordinary tooling starting another
 * coordinator), inside the line crifresh defends.
 */
class WorkerFenceTest {
    private final ApiFixture cluster = ApiFixture.start();
    private final AtomicInteger askedOnWorker = new AtomicInteger();

    /** Open on the event loop, closed on a worker thread. */
    private final Fence closesBeforeTheWorkerRuns = Fence.of(() -> {
        if (Context.isOnWorkerThread()) {
            askedOnWorker.incrementAndGet();
            return false;
        }
        return true;
    });

    @AfterEach
    void close() {
        cluster.close();
    }

    private <T> Throwable failureOf(Context ctx, Supplier<Future<T>> call) throws Exception {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        ctx.runOnContext(v -> {
            assertTrue(closesBeforeTheWorkerRuns.mayWrite(), "the fence is open where the call is queued");
            call.get().onComplete(ar -> done.complete(ar.succeeded() ? null : ar.cause()));
        });
        return done.get(30, TimeUnit.SECONDS);
    }

    private List<Exchange> writes() {
        return cluster.api.history().stream().filter(e -> !e.method().equals("GET")).toList();
    }

    @Test
    void aNodePatchQueuedWhileTheFenceWasOpenIsNotSentOnceItClosed() throws Exception {
        cluster.addNode("w1", false, "10.0.0.1");
        int before = writes().size();
        Context ctx = cluster.vertx.getOrCreateContext();
        NodeOps nodes = new Fabric8NodeOps(ctx, cluster.client, null).gated(WorkerFence.gate(closesBeforeTheWorkerRuns));
        Throwable json = failureOf(ctx, () -> nodes.jsonPatch("w1",
                "[{\"op\":\"add\",\"path\":\"/metadata/labels/late\",\"value\":\"x\"}]"));
        Throwable merge = failureOf(ctx, () -> nodes.mergePatch("w1", "{\"metadata\":{\"labels\":{\"late\":\"x\"}}}"));
        assertInstanceOf(GuardedPatch.Fenced.class, json);
        assertInstanceOf(GuardedPatch.Fenced.class, merge);
        assertEquals(2, askedOnWorker.get());
        assertEquals(before, writes().size(), "nothing was sent: " + writes());
        assertTrue(cluster.node("w1").getMetadata().getLabels().get("late") == null);
    }

    @Test
    void anEvictionAndAnEventQueuedWhileTheFenceWasOpenAreNotSentOnceItClosed() throws Exception {
        cluster.addNode("w1", false, "10.0.0.1");
        cluster.addPod("shop", "web-0", "w1");
        int before = writes().size();
        Context ctx = cluster.vertx.getOrCreateContext();
        PodOps pods = new Fabric8PodOps(ctx, cluster.client, true).gated(WorkerFence.gate(closesBeforeTheWorkerRuns));
        EventOps events = new Fabric8EventOps(ctx, cluster.client).gated(WorkerFence.gate(closesBeforeTheWorkerRuns));
        Event event = new EventBuilder().withNewMetadata().withNamespace("default").withName("w1.late").endMetadata()
                .withReason("CrifreshLate").withMessage("late").build();
        assertInstanceOf(GuardedPatch.Fenced.class, failureOf(ctx, () -> pods.evict("shop", "web-0")));
        assertInstanceOf(GuardedPatch.Fenced.class, failureOf(ctx, () -> events.create(event)));
        assertEquals(before, writes().size(), "nothing was sent: " + writes());
        assertEquals(1, cluster.podsOn("w1").size(), "the pod was not evicted");
    }

    @Test
    void theRebootDriverIsNotCalledOnceTheFenceClosedBeforeItsWorkerRan() throws Exception {
        Node node = cluster.addNode("w1", false, "10.0.0.1");
        AtomicInteger reboots = new AtomicInteger();
        RebootDriver driver = WorkerFence.driver(n -> reboots.incrementAndGet(), closesBeforeTheWorkerRuns);
        Context ctx = cluster.vertx.getOrCreateContext();
        Throwable failed = failureOf(ctx, () -> ctx.executeBlocking(() -> {
            driver.reboot(node);
            return null;
        }, false));
        assertInstanceOf(GuardedPatch.Fenced.class, failed);
        assertEquals(0, reboots.get());
        // The check before a reboot is a read: not fenced.
        assertEquals(null, failureOf(ctx, () -> ctx.executeBlocking(() -> {
            driver.check(node, List.of(node));
            return null;
        }, false)));
    }

    @Test
    void anOpenFenceLetsTheWriteThrough() throws Exception {
        cluster.addNode("w1", false, "10.0.0.1");
        Context ctx = cluster.vertx.getOrCreateContext();
        NodeOps nodes = new Fabric8NodeOps(ctx, cluster.client, null).gated(WorkerFence.gate(Fence.open()));
        CompletableFuture<Node> done = new CompletableFuture<>();
        ctx.runOnContext(v -> nodes.mergePatch("w1", "{\"metadata\":{\"labels\":{\"sent\":\"yes\"}}}")
                .onComplete(ar -> done.complete(ar.result())));
        assertEquals("yes", done.get(30, TimeUnit.SECONDS).getMetadata().getLabels().get("sent"));
    }
}
