package dev.crifresh.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.common.retry.RetryPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClosedException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A stopped publisher closed its Node watch: that watch's connection ending afterwards is no watch failure. */
class ConditionPublisherStopTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void stop() {
        vertx.close().await();
    }

    /** Only the watch: the publisher never publishes in this test. */
    private static final class WatchOnly implements NodeApi {
        final AtomicReference<Consumer<Throwable>> onError = new AtomicReference<>();

        @Override
        public Node get(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void patchStatus(String name, String jsonPatch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
            this.onError.set(onError);
            return () -> { };
        }
    }

    @Test
    void aWatchErrorAfterStopIsNotCountedNorLogged() throws Exception {
        Context context = vertx.getOrCreateContext();
        WatchOnly api = new WatchOnly();
        AgentMetrics metrics = new AgentMetrics();
        ConditionPublisher publisher = new ConditionPublisher(vertx, context, api, AgentSettings.defaults("n1"), null,
                null, metrics, RetryPolicy.doubling(Duration.ofMillis(10), Duration.ofMillis(10)).withJitter(0.5, () -> 0.5));
        publisher.start().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

        api.onError.get().accept(new HttpClosedException("Connection was closed"));
        settle(context);
        assertEquals(1.0, watchErrors(metrics), "a watch failure while running counts");

        publisher.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        api.onError.get().accept(new HttpClosedException("Connection was closed"));
        settle(context);
        assertEquals(1.0, watchErrors(metrics), "the closed watch's end was counted as a failure");
    }

    /** Waits until the context ran everything queued before this call. */
    private static void settle(Context context) throws Exception {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> done.complete());
        done.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static double watchErrors(AgentMetrics metrics) {
        Counter c = metrics.registry().find(AgentMetrics.API_ERRORS).tag("operation", "watch").counter();
        return c == null ? 0 : c.count();
    }
}
