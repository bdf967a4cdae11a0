package dev.crifresh.coordinator.rollout.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.NodePatches;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guarded read-decide-patch loop against the mock API server (CRUD mode): what the guard depends on, what
 * it ignores, and how long a refused patch is tried again. Fencing point 4 of docs/design.md: a late request
 * cannot undo a newer decision (the other run's write lands between our read and our patch).
 */
class GuardedPatchTest {
    private static final String RUN_A = "run-a";

    private ApiFixture cluster;
    private Vertx vertx;
    private Context context;
    /** The waits the patches asked their ticker for, in order (the ticker fires them at once: no real time passes). */
    private final List<Duration> waits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        cluster = ApiFixture.start();
        vertx = cluster.vertx;
        context = vertx.getOrCreateContext();
        cluster.addNode("w1", false, "10.0.0.1");
        cluster.mergePatch("w1", "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"run-a/verifying\","
                + "\"crifresh.dev/cordoned\":\"true\"}},\"spec\":{\"unschedulable\":true}}");
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    /** Run a's release: only while w1 is still run a's. */
    private static GuardedPatch.Step releaseByRunA(Node node) {
        if (node == null) {
            return new GuardedPatch.Refuse("deleted");
        }
        String owner = node.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT);
        if (owner == null || !owner.startsWith(RUN_A + "/")) {
            return new GuardedPatch.Refuse("now owned by '" + owner + "'");
        }
        return new GuardedPatch.Patch(NodePatches.release(node, true));
    }

    @Test
    void aLateReleaseCannotUndoTheNewerOwnersDecision() throws Exception {
        // Fencing point 4: run b took w1 over (its ownership, still cordoned) after a read w1 as its own.
        Nodes nodes = new Nodes(before -> cluster.mergePatch("w1",
                "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"run-b/draining\"}}}"));

        Throwable e = failure(apply(nodes, true, GuardedPatchTest::releaseByRunA));

        assertInstanceOf(GuardedPatch.Refused.class, e);
        assertEquals("run-b/draining", cluster.node("w1").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
        assertTrue(cluster.node("w1").getSpec().getUnschedulable(), "the newer owner's cordon was lifted");
        assertTrue(e.getMessage().contains("run-b/draining"), "not decided again on a fresh read: " + e.getMessage());
        assertEquals(1, nodes.patches.get(), "sent again after the fresh read showed another owner");
    }

    @Test
    void aStatusWriteBetweenTheReadAndThePatchDoesNotFailIt() throws Exception {
        // The agent's heartbeat (or the kubelet's) changes the resourceVersion and nothing the release depends on.
        Nodes nodes = new Nodes(before -> cluster.patchStatus("w1",
                "[{\"op\":\"add\",\"path\":\"/status/nodeInfo/kernelVersion\",\"value\":\"beat\"}]"));

        Node released = apply(nodes, true, GuardedPatchTest::releaseByRunA).get(30, TimeUnit.SECONDS);

        assertEquals(1, nodes.patches.get(), "the status write refused the patch");
        assertNull(released.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
        assertNull(cluster.node("w1").getSpec().getUnschedulable());
    }

    @Test
    void refusalsOfANodeThatKeepsChangingAreRetriedBeyondAnyFixedCount() throws Exception {
        int refusals = GuardedPatch.UNCHANGED_CONFLICTS + 5;
        AtomicInteger beat = new AtomicInteger();
        Nodes nodes = new Nodes(before -> cluster.patchStatus("w1",
                "[{\"op\":\"add\",\"path\":\"/status/nodeInfo/kernelVersion\",\"value\":\"" + beat.incrementAndGet() + "\"}]"))
                .refuse(refusals);

        apply(nodes, true, GuardedPatchTest::releaseByRunA).get(30, TimeUnit.SECONDS);

        assertEquals(refusals + 1, nodes.patches.get());
        assertNull(cluster.node("w1").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
        assertEquals(List.of(), waits, "a refusal the node's change explains is decided again at once");
    }

    @Test
    void refusalsOfAnUnchangedNodeEndAfterTheLimit() throws Exception {
        Nodes nodes = new Nodes(before -> { }).refuse(Integer.MAX_VALUE);

        Throwable e = failure(apply(nodes, true, GuardedPatchTest::releaseByRunA));

        assertTrue(e instanceof KubernetesClientException k && k.getCode() == 409, String.valueOf(e));
        assertEquals(GuardedPatch.UNCHANGED_CONFLICTS + 1, nodes.patches.get());
        assertEquals("run-a/verifying", cluster.node("w1").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
        // the first refusal is read again at once; the next ones of the unchanged node back off, 10 ms doubling to 100 ms
        assertEquals(List.of(10L, 20L, 40L, 80L, 100L, 100L, 100L, 100L, 100L), waits.stream().map(Duration::toMillis).toList());
    }

    @Test
    void nothingIsSentWithoutTheLease() throws Exception {
        Nodes nodes = new Nodes(before -> { });

        Throwable e = failure(apply(nodes, false, GuardedPatchTest::releaseByRunA));

        assertInstanceOf(GuardedPatch.Fenced.class, e);
        assertEquals(0, nodes.patches.get());
    }

    @Test
    void aCurrentCopyIsPatchedWithoutARead() throws Exception {
        Nodes nodes = new Nodes(before -> { });

        Node released = apply(nodes, cluster.node("w1"), GuardedPatchTest::releaseByRunA).get(30, TimeUnit.SECONDS);

        assertEquals(0, nodes.gets.get(), "decided on the copy the run had");
        assertEquals(1, nodes.patches.get());
        assertNull(released.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
    }

    @Test
    void aStaleCopyIsRefusedByItsGuardAndDecidedAgainOnAFreshRead() throws Exception {
        // Fencing point 4 on a copy: run b took w1 over after the copy was made; the patch decided on it is refused.
        Node stale = cluster.node("w1");
        cluster.mergePatch("w1", "{\"metadata\":{\"annotations\":{\"crifresh.dev/rollout\":\"run-b/draining\"}}}");
        Nodes nodes = new Nodes(before -> { });

        Throwable e = failure(apply(nodes, stale, GuardedPatchTest::releaseByRunA));

        assertInstanceOf(GuardedPatch.Refused.class, e);
        assertTrue(e.getMessage().contains("run-b/draining"), "decided again on a fresh read: " + e.getMessage());
        assertEquals(1, nodes.gets.get());
        assertTrue(cluster.node("w1").getSpec().getUnschedulable(), "the newer owner's cordon was lifted");
    }

    @Test
    void onlyAPatchIsSentFromACopyAnythingElseIsConfirmedOnAFreshRead() throws Exception {
        Node unowned = cluster.node("w1");
        unowned.getMetadata().getAnnotations().remove(CrifreshAnnotations.ROLLOUT); // a copy from before the claim
        Nodes nodes = new Nodes(before -> { });

        apply(nodes, unowned, node -> node.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT) == null
                ? new GuardedPatch.Skip() : releaseByRunA(node)).get(30, TimeUnit.SECONDS);

        assertEquals(1, nodes.gets.get(), "the copy's Skip was read again");
        assertNull(cluster.node("w1").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT), "released after all");
    }

    @Test
    void thePatchesTestWhatTheirDecisionDependsOn() {
        Node owned = cluster.node("w1");
        String release = NodePatches.release(owned, true);
        assertTrue(release.contains("{\"op\":\"test\",\"path\":\"/metadata/annotations/crifresh.dev~1rollout\",\"value\":\"run-a/verifying\"}"), release);
        assertTrue(release.contains("{\"op\":\"test\",\"path\":\"/spec/unschedulable\",\"value\":true}"), release);
        assertTrue(!release.contains("resourceVersion"), release);
        String rebooting = NodePatches.phase(owned, "run-a/rebooting", "boot-1");
        assertTrue(rebooting.contains("{\"op\":\"test\",\"path\":\"/status/nodeInfo/bootID\",\"value\":\"boot-1\"}"), rebooting);
        cluster.addNode("w2", false, "10.0.0.2");
        String claim = NodePatches.claim(cluster.node("w2"), "run-a/draining", true);
        assertTrue(claim.contains("\"path\":\"/metadata/resourceVersion\""), "a claim depends on absence: " + claim);
    }

    private CompletableFuture<Node> apply(NodeOps nodes, boolean held, Function<Node, GuardedPatch.Step> decide) {
        return apply(nodes, held, null, decide);
    }

    private CompletableFuture<Node> apply(NodeOps nodes, Node known, Function<Node, GuardedPatch.Step> decide) {
        return apply(nodes, true, known, decide);
    }

    private CompletableFuture<Node> apply(NodeOps nodes, boolean held, Node known, Function<Node, GuardedPatch.Step> decide) {
        CompletableFuture<Node> out = new CompletableFuture<>();
        Fence fence = Fence.of(() -> held);
        GuardedPatch.Target target = new GuardedPatch.Target(nodes, new ApiRetry(Ticker.of(vertx), fence), fence, new AtOnce());
        context.runOnContext(v -> GuardedPatch.apply(target, "w1", known, decide).onComplete(ar -> {
            if (ar.succeeded()) {
                out.complete(ar.result());
            } else {
                out.completeExceptionally(ar.cause());
            }
        }));
        return out;
    }

    private static Throwable failure(CompletableFuture<Node> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the patch succeeded");
    }

    /** Real node operations; {@code beforeFirstPatch} (or before every refused one) runs right before it is sent. */
    private final class Nodes implements NodeOps {
        @Override
        public NodeOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        final NodeOps real = new Fabric8NodeOps(context, cluster.client, null);
        final AtomicInteger patches = new AtomicInteger();
        final AtomicInteger gets = new AtomicInteger();
        final java.util.function.Consumer<Node> beforePatch;
        int refusals;

        Nodes(java.util.function.Consumer<Node> beforePatch) {
            this.beforePatch = beforePatch;
        }

        Nodes refuse(int times) {
            refusals = times;
            return this;
        }

        @Override
        public Future<Node> jsonPatch(String name, String patch) {
            int n = patches.incrementAndGet();
            return context.<Void>executeBlocking(() -> {
                if (n == 1 || n <= refusals) {
                    beforePatch.accept(null);
                }
                return null;
            }, false).compose(v -> n <= refusals
                    ? Future.failedFuture(new KubernetesClientException("injected conflict", 409, null))
                    : real.jsonPatch(name, patch));
        }

        @Override
        public Future<List<Node>> list() {
            return real.list();
        }

        @Override
        public Future<List<Node>> listAll() {
            return real.listAll();
        }

        @Override
        public Future<Node> get(String name) {
            gets.incrementAndGet();
            return real.get(name);
        }

        @Override
        public Future<Node> mergePatch(String name, String patch) {
            throw new AssertionError("node patches are JSON Patches");
        }

        @Override
        public Future<NodeWatch> watch(NodeEvents events) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<NodeWatch> watchAll(NodeEvents events) {
            throw new UnsupportedOperationException();
        }
    }

    /** A ticker that records each wait and fires it at once on the test's context. */
    private final class AtOnce implements Ticker {
        private long now;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public long setTimer(Duration delay, Runnable action) {
            waits.add(delay);
            now += delay.toNanos();
            context.runOnContext(v -> action.run());
            return waits.size();
        }

        @Override
        public void cancelTimer(long id) {
            throw new AssertionError("a guarded patch cancels no wait");
        }
    }
}
