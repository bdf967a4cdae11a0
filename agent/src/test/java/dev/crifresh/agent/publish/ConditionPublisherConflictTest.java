package dev.crifresh.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.Fabric8NodeApi;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.agent.testing.TestClock;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rejected condition patch (a concurrent writer) is decided again on a fresh read of the Node, on a timer, at most
 * {@link ConditionPublisher#MAX_CONFLICT_RETRIES} times in a row; the next rejection is a failure like any other and
 * waits for the back-off. Against the mock API server; the rejections are injected (409) before the real patch.
 */
class ConditionPublisherConflictTest {
    private static final String NODE = "w1";
    /** No retry after the back-off within a test. */
    private static final RetryPolicy NO_RETRY_SOON = RetryPolicy.constant(Duration.ofHours(1));
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Vertx vertx = Vertx.vertx();
    private final MockApi api = new MockApi(vertx);
    private final AgentMetrics metrics = new AgentMetrics();
    private ConditionPublisher publisher;

    @AfterEach
    void tearDown() throws Exception {
        if (publisher != null) {
            publisher.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        api.close();
        vertx.close().await();
    }

    @Test
    void twoRejectionsAreReadAgainAndTheThirdPatchLands() throws Exception {
        Rejecting nodes = new Rejecting(2);
        publish(nodes);

        Poll.until(WAIT, "a publish", () -> publishes("success") == 1);
        assertEquals(3, nodes.patches.get());
        assertEquals(3, nodes.gets.get(), "each retry decides on a fresh read");
        assertEquals(2, publishes("conflict"));
        assertEquals(0, publishes("error"));
        assertNotNull(ours(), "the condition was not written");
    }

    @Test
    void aFourthRejectionInARowWaitsForTheBackoff() throws Exception {
        Rejecting nodes = new Rejecting(Integer.MAX_VALUE);
        publish(nodes);

        Poll.until(WAIT, "the back-off", () -> publishes("error") == 1);
        publisher.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        publisher = null;
        assertEquals(1 + ConditionPublisher.MAX_CONFLICT_RETRIES, nodes.patches.get());
        assertEquals(ConditionPublisher.MAX_CONFLICT_RETRIES, publishes("conflict"));
        assertEquals(null, ours());
    }

    private void publish(NodeApi nodes) throws Exception {
        api.createNode(NODE, "6f1e0c0a-0000-4000-8000-000000000004");
        publisher = new ConditionPublisher(vertx, vertx.getOrCreateContext(), nodes, AgentSettings.defaults(NODE), null,
                new TestClock(Instant.now().minusSeconds(1000)), metrics, NO_RETRY_SOON);
        publisher.start().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        // an evaluation that failed: published unsigned (Unknown), so no signing key is needed
        vertx.getOrCreateContext().runOnContext(v -> publisher.offer(Assessment.failed("test", 0), true, null));
    }

    private double publishes(String result) {
        Counter c = metrics.registry().find(AgentMetrics.PUBLISHES).tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    private Object ours() {
        return api.conditions(NODE).stream().filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType()))
                .findFirst().orElse(null);
    }

    /** The real Node API, rejecting the first {@code rejections} patches as a concurrent writer's change would. */
    private final class Rejecting implements NodeApi {
        final NodeApi real = new Fabric8NodeApi(api.client());
        final AtomicInteger patches = new AtomicInteger();
        final AtomicInteger gets = new AtomicInteger();
        final int rejections;

        Rejecting(int rejections) {
            this.rejections = rejections;
        }

        @Override
        public Node get(String name) throws ApiException {
            gets.incrementAndGet();
            return real.get(name);
        }

        @Override
        public void patchStatus(String name, String jsonPatch) throws ApiException {
            if (patches.incrementAndGet() <= rejections) {
                throw new ApiException(409, "the object has been modified (injected)", null);
            }
            real.patchStatus(name, jsonPatch);
        }

        @Override
        public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
            return real.watch(name, onNode, onError);
        }
    }
}
