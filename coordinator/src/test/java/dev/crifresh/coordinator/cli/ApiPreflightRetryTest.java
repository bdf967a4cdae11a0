package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.fixture.ManualTicker;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Future;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The preflight's retry on a manual clock: when each probe is sent, when the check gives up, and which failures
 * end it at once. The probes' answers are scripted; ClusterCliTest covers the same paths against real sockets.
 */
class ApiPreflightRetryTest {
    private static final ClusterTarget TARGET = new ClusterTarget(null, "https://127.0.0.1:6443", "ci", "--kubeconfig /k");
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);

    static KubernetesClientException refused() {
        return new KubernetesClientException("connect failed", new ConnectException("Connection refused"));
    }

    static Stream<Arguments> unreachable() {
        // answers of the probes in order ("x" refused, "ok" answered), the times they are sent (ms), the outcome
        return Stream.of(
                Arguments.of(List.of("ok", "ok"), List.of(0L, 0L), "ok"),
                Arguments.of(List.of("x", "ok", "ok"), List.of(0L, 250L, 250L), "ok"),
                Arguments.of(List.of("x", "x", "x", "ok", "ok"), List.of(0L, 250L, 750L, 1750L, 1750L), "ok"),
                // the fourth delay (2 s) would pass the 3 s deadline: the last attempt is sent at the deadline
                Arguments.of(List.of("x", "x", "x", "x", "ok", "ok"), List.of(0L, 250L, 750L, 1750L, 3000L, 3000L), "ok"),
                Arguments.of(List.of("x", "x", "x", "x", "x"), List.of(0L, 250L, 750L, 1750L, 3000L), "unreachable"),
                // the attempt count runs across probes: the second probe's first retry waits 1 s, not 250 ms
                Arguments.of(List.of("x", "x", "ok", "x", "ok"), List.of(0L, 250L, 750L, 750L, 1750L), "ok"));
    }

    @ParameterizedTest(name = "{0}: sent at {1} ms, {2}")
    @MethodSource("unreachable")
    void anUnreachableServerIsAskedAgainOnATimerUntilTheConnectTimeout(List<String> answers, List<Long> sentAtMillis,
                                                                       String outcome) {
        ManualTicker ticker = new ManualTicker();
        long start = ticker.nanoTime();
        Deque<String> script = new ArrayDeque<>(answers);
        List<Long> sent = new ArrayList<>();
        List<String> progress = new ArrayList<>();
        ApiPreflight.Runner runner = new ApiPreflight.Runner(ticker::nanoTime, ticker::setTimer, probe -> {
            sent.add((ticker.nanoTime() - start) / 1_000_000);
            return "ok".equals(script.poll()) ? Future.succeededFuture() : Future.failedFuture(refused());
        });
        Future<Void> result = ApiPreflight.check(runner, TARGET, CONNECT_TIMEOUT, ApiPreflight.rollout("kube-system"), progress::add);
        ticker.advance(Duration.ofSeconds(10));

        assertEquals(sentAtMillis, sent);
        assertEquals(0, ticker.pending(), "no timer is left behind");
        assertEquals(answers.contains("x") ? List.of("cannot reach https://127.0.0.1:6443: connection refused; trying for up to 3s"
                + " (--connect-timeout)") : List.of(), progress, "told once");
        if (outcome.equals("ok")) {
            assertTrue(result.succeeded(), String.valueOf(result.cause()));
        } else {
            assertInstanceOf(ApiUnreachableException.class, result.cause());
            assertEquals("cannot reach https://127.0.0.1:6443: connection refused; gave up after --connect-timeout 3s"
                    + " (--kubeconfig /k)", result.cause().getMessage());
        }
    }

    static Stream<Arguments> mistakes() {
        return Stream.of(
                Arguments.of(new KubernetesClientException("tls", new SSLHandshakeException("PKIX path building failed")),
                        UsageException.class, "cannot reach https://127.0.0.1:6443: TLS handshake failed: PKIX path building failed"
                                + " (check the cluster's certificate-authority in --kubeconfig /k)"),
                Arguments.of(new KubernetesClientException("Unauthorized", 401, null), UsageException.class,
                        "https://127.0.0.1:6443 rejected the credentials of context ci (--kubeconfig /k): 401 Unauthorized"),
                Arguments.of(new KubernetesClientException("Forbidden", 403, null), UsageException.class,
                        "https://127.0.0.1:6443: 403 Forbidden: context ci (--kubeconfig /k) may not list nodes; missing RBAC"
                                + " permission 'list' on nodes (cluster scope) (server: Forbidden)"),
                Arguments.of(new KubernetesClientException("Internal Server Error", 500, null), KubernetesClientException.class,
                        "Internal Server Error"),
                Arguments.of(new IllegalStateException("client closed"), IllegalStateException.class, "client closed"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("mistakes")
    void anyOtherFailureEndsTheCheckAtOnce(Exception failure, Class<? extends Throwable> type, String message) {
        ManualTicker ticker = new ManualTicker();
        long start = ticker.nanoTime();
        List<Long> sent = new ArrayList<>();
        ApiPreflight.Runner runner = new ApiPreflight.Runner(ticker::nanoTime, ticker::setTimer, probe -> {
            sent.add(ticker.nanoTime() - start);
            return Future.failedFuture(failure);
        });
        Future<Void> result = ApiPreflight.check(runner, TARGET, CONNECT_TIMEOUT, ApiPreflight.plan(), text -> { });
        ticker.advance(Duration.ofSeconds(10));

        assertEquals(List.of(0L), sent, "sent once, not retried");
        assertInstanceOf(type, result.cause());
        assertEquals(message, result.cause().getMessage());
    }
}
