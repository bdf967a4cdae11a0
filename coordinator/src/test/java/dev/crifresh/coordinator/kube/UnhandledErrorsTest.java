package dev.crifresh.coordinator.kube;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which exceptions that escaped every handler of a Vert.x are fabric8's second failure of a closed request. */
class UnhandledErrorsTest {
    private Vertx vertx;
    private final List<Throwable> unhandled = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        vertx.exceptionHandler(unhandled::add);
    }

    @AfterEach
    void stop() {
        vertx.close().await();
    }

    /**
     * A real fabric8 client on Vert.x sends a request body far larger than the loopback socket buffers to a server
     * that resets the connection after its first bytes: the write fails while the body is still being sent, then
     * the response, and fabric8 fails its promise twice.
     */
    @Test
    void fabric8sSecondFailureOfARequestWhoseConnectionWasResetIsRecognised() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread resetter = new Thread(() -> resetEveryConnection(server), "resetter");
            resetter.setDaemon(true);
            resetter.start();
            var config = new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.getLocalPort())
                    .withRequestRetryBackoffLimit(0).withRequestTimeout(30_000).build();
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
                    .withHttpClientFactory(new Vertx5HttpClientFactory(vertx)).build()) {
                var big = new ConfigMapBuilder().withNewMetadata().withName("big").withNamespace("ns").endMetadata()
                        .addToData("blob", "x".repeat(32 << 20)).build();
                assertThrows(KubernetesClientException.class, () -> client.configMaps().resource(big).create());
                Poll.until(Duration.ofSeconds(30), "the second failure to reach the Vert.x", () -> !unhandled.isEmpty());
            }
        }
        for (Throwable e : unhandled) {
            assertTrue(UnhandledErrors.isSecondFailureOfAClosedRequest(e), () -> "not recognised: " + trace(e));
        }
    }

    /** The same message thrown by our own code on the event loop is an error with its trace, not this case. */
    @Test
    void aPromiseCompletedTwiceOutsideAnHttpRequestIsAnError() {
        vertx.runOnContext(v -> {
            Promise<Void> p = Promise.promise();
            p.complete();
            p.fail("again");
        });
        Poll.until(Duration.ofSeconds(10), "the exception", () -> !unhandled.isEmpty());
        assertFalse(UnhandledErrors.isSecondFailureOfAClosedRequest(unhandled.get(0)), trace(unhandled.get(0)));
        assertFalse(UnhandledErrors.isSecondFailureOfAClosedRequest(new IllegalStateException("Promise already completed")));
        assertFalse(UnhandledErrors.isSecondFailureOfAClosedRequest(new IOException("Connection reset")));
    }

    private static void resetEveryConnection(ServerSocket server) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                if (in.read(new byte[1024]) < 0) {
                    continue;
                }
                s.setSoLinger(true, 0); // close with a reset, not an orderly FIN
            } catch (IOException e) {
                return;
            }
        }
    }

    private static String trace(Throwable e) {
        var out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
