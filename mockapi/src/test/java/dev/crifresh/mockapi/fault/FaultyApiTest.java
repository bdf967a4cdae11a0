package dev.crifresh.mockapi.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two clients of one mock API, each behind its own proxy, with faults for one of them only. */
class FaultyApiTest {
    private FaultyApi api;
    private Vertx vertx;
    /** Exceptions that escaped every handler of the clients' Vert.x, but for fabric8's known second failure. */
    private final List<Throwable> unhandled = new CopyOnWriteArrayList<>();
    private KubernetesClient a;
    private KubernetesClient b;

    @BeforeEach
    void start() {
        api = FaultyApi.start();
        vertx = Vertx.vertx();
        vertx.exceptionHandler(e -> {
            if (!secondFailureOfAClosedRequest(e)) {
                unhandled.add(e);
            }
        });
        a = client("a");
        b = client("b");
        // The first request of a client is slow on a loaded machine (connection, class loading): not under test.
        for (KubernetesClient c : List.of(a, b)) {
            Poll.until(Duration.ofSeconds(60), "a first answer", () -> {
                try {
                    return c.nodes().list() != null;
                } catch (KubernetesClientException e) {
                    return false;
                }
            });
        }
    }

    private KubernetesClient client(String name) {
        // Retries off and a short timeout: each call shows the fault it met.
        Config config = new ConfigBuilder(api.clientConfig(name)).withRequestRetryBackoffLimit(0).withRequestTimeout(5_000)
                .withConnectionTimeout(5_000).build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new Vertx5HttpClientFactory(vertx)).build();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        vertx.close().await();
        api.close();
        assertEquals(List.of(), unhandled, "exceptions no handler caught");
    }

    /**
     * fabric8 8.0's Vertx5HttpRequest fails a request's promise twice when its connection closes while the request
     * is being sent (a proxy's reset): the body write's failure, then the response's, which throws "Promise already
     * completed" into the event loop. The request itself failed as the test expects. The coordinator's
     * UnhandledErrors recognises the same; this module cannot depend on it.
     */
    private static boolean secondFailureOfAClosedRequest(Throwable e) {
        if (!(e instanceof IllegalStateException) || !"Promise already completed".equals(e.getMessage())) {
            return false;
        }
        StackTraceElement[] stack = e.getStackTrace();
        return stack.length > 0 && stack[0].getClassName().equals("io.vertx.core.Promise")
                && java.util.Arrays.stream(stack).anyMatch(f -> f.getClassName().equals("io.vertx.core.http.impl.HttpClientRequestBase")
                        && f.getMethodName().equals("fail"));
    }

    private static Lease lease(String holder) {
        return new LeaseBuilder().withNewMetadata().withName("l").withNamespace("ns").endMetadata()
                .withNewSpec().withHolderIdentity(holder).endSpec().build();
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    @Test
    void aFailRuleAnswersOnlyTheNamedClientsMatchingRequests() {
        b.leases().inNamespace("ns").resource(lease("b")).create();
        api.faults("a").fail(Requests.leases(), 500);

        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> a.leases().inNamespace("ns").withName("l").get());
        assertEquals(500, e.getCode());
        assertEquals("b", b.leases().inNamespace("ns").withName("l").get().getSpec().getHolderIdentity());
        a.nodes().resource(node("n1")).create(); // a's other calls pass
        assertEquals("n1", b.nodes().withName("n1").get().getMetadata().getName());

        List<Exchange> leaseCalls = api.dispatcher().history("a", x -> x.path().contains("/leases"));
        assertEquals(1, leaseCalls.size(), leaseCalls.toString());
        assertEquals(500, leaseCalls.get(0).code());
        assertTrue(leaseCalls.get(0).faulted());
        assertTrue(api.dispatcher().history("b", x -> x.faulted()).isEmpty());

        api.faults("a").clear();
        assertEquals("b", a.leases().inNamespace("ns").withName("l").get().getSpec().getHolderIdentity());
    }

    @Test
    void aCountedFailRuleAnswersOnlyThatManyRequests() {
        a.nodes().resource(node("n1")).create();
        api.faults("a").fail(Requests.call("GET", "/nodes/n1"), 503, 2);
        assertEquals(503, assertThrows(KubernetesClientException.class, () -> a.nodes().withName("n1").get()).getCode());
        assertEquals(503, assertThrows(KubernetesClientException.class, () -> a.nodes().withName("n1").get()).getCode());
        assertEquals("n1", a.nodes().withName("n1").get().getMetadata().getName());
        assertEquals(2, api.dispatcher().history("a", Exchange::faulted).size());
    }

    @Test
    void aRefusingProxyResetsTheClientsConnectionsUntilItPassesAgain() {
        a.nodes().resource(node("n1")).create();
        api.proxy("a").refuse();
        assertThrows(KubernetesClientException.class, () -> a.nodes().withName("n1").get());
        assertEquals("n1", b.nodes().withName("n1").get().getMetadata().getName());
        api.proxy("a").pass();
        assertEquals("n1", a.nodes().withName("n1").get().getMetadata().getName());
    }

    @Test
    void aHungProxyLetsTheClientsRequestsTimeOutAndDeliversWhatItHeldOnPass() {
        api.proxy("a").hang();
        assertThrows(KubernetesClientException.class, () -> a.nodes().resource(node("late")).create());
        assertEquals(null, b.nodes().withName("late").get(), "a hung request reached the server");
        api.proxy("a").pass();
        // The held request goes out now, late, as a retransmitted one would.
        Poll.until(Duration.ofSeconds(10), "the held create to land", () -> b.nodes().withName("late").get() != null);
        assertEquals("late", a.nodes().withName("late").get().getMetadata().getName());
    }

    @Test
    void aDelayRuleOrADelayingProxyMakesAnswersSlowerThanTheClientWaits() {
        a.nodes().resource(node("n1")).create();
        api.faults("a").delay(Requests.pathContains("/nodes/n1"), Duration.ofSeconds(12));
        assertThrows(KubernetesClientException.class, () -> a.nodes().withName("n1").get());
        api.faults("a").clear();
        assertEquals("n1", a.nodes().withName("n1").get().getMetadata().getName());

        api.proxy("a").delay(Duration.ofSeconds(12));
        assertThrows(KubernetesClientException.class, () -> a.nodes().withName("n1").get());
        api.proxy("a").delay(Duration.ZERO);
        Poll.until(Duration.ofSeconds(10), "the proxy to answer at once again", () -> {
            try {
                return a.nodes().withName("n1").get() != null;
            } catch (KubernetesClientException e) {
                return false; // a connection still holding a delayed chunk
            }
        });
    }

    @Test
    void watchesStreamThroughTheProxy() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Watch watch = a.nodes().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
                seen.add(action + " " + node.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
        try {
            b.nodes().resource(node("n1")).create();
            Poll.until(Duration.ofSeconds(10), "the watch event", () -> seen.contains("ADDED n1"));
            assertTrue(api.dispatcher().history("a", x -> x.code() == 101).size() >= 1, api.history().toString());
        } finally {
            watch.close();
        }
    }

    @Test
    void theServerClosesOnlyTheNamedClientsWatchesAndTheClientWatchesAgain() {
        List<String> seenA = new CopyOnWriteArrayList<>();
        List<String> seenB = new CopyOnWriteArrayList<>();
        Watch wa = a.nodes().watch(seeing(seenA));
        Watch wb = b.nodes().watch(seeing(seenB));
        try {
            Poll.until(Duration.ofSeconds(10), "both watches open", () -> watches("a") == 1 && watches("b") == 1);
            Poll.until(Duration.ofSeconds(10), "a's watch closed", () -> api.closeWatches("a", "/api/v1/nodes") == 1);
            // fabric8 re-opens a watch the server ended (no error for the watcher): a second upgrade, for a only.
            Poll.until(Duration.ofSeconds(20), "a to watch again", () -> watches("a") == 2);
            b.nodes().resource(node("n2")).create();
            Poll.until(Duration.ofSeconds(10), "the event on both watches", () -> seenA.contains("ADDED n2") && seenB.contains("ADDED n2"));
            assertEquals(1, watches("b"), "b's watch was closed too");
        } finally {
            wa.close();
            wb.close();
        }
    }

    @Test
    void aGoneRuleEndsTheWatchAsExpiredSoThatTheClientMustListAgain() {
        List<WatcherException> closed = new CopyOnWriteArrayList<>();
        api.faults("a").gone(Requests.pathContains("watch=true"));
        Watch w = a.nodes().withResourceVersion("1").watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
            }

            @Override
            public void onClose(WatcherException cause) {
                closed.add(cause);
            }
        });
        try {
            Poll.until(Duration.ofSeconds(20), "the watch to end", () -> !closed.isEmpty());
            assertTrue(closed.get(0).isHttpGone(), "not a 410: " + closed.get(0));
            assertEquals(List.of(410), api.dispatcher().history("a", x -> x.path().contains("watch=true")).stream()
                    .map(Exchange::code).toList());
        } finally {
            w.close();
        }
    }

    private int watches(String client) {
        return api.dispatcher().history(client, x -> x.code() == 101).size();
    }

    private static Watcher<Node> seeing(List<String> seen) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
                seen.add(action + " " + node.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }
}
