package dev.crifresh.sim.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.InClusterConfig;
import dev.crifresh.agent.kube.VertxNodeApi;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import io.vertx.core.Vertx;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated agents' way to the API server: the DaemonSet's client on the in-cluster configuration. */
class InClusterEndpointTest {
    private Vertx vertx;
    private MockApi api;

    @BeforeEach
    void start() {
        vertx = UnhandledErrors.on(Vertx.vertx());
        api = MockApi.start(vertx);
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition()
                .endStatus().build()).create();
    }

    @AfterEach
    void stop() {
        api.close();
        vertx.close().await();
    }

    private InClusterConfig podConfig() {
        return InClusterConfig.fromEnvironment(api.inCluster().podEnvironment()).orElseThrow();
    }

    @Test
    void theAgentsClientReadsPatchesAndWatchesItsNodeThroughTheHttpsFront() throws Exception {
        try (VertxNodeApi agent = new VertxNodeApi(vertx, podConfig())) {
            assertEquals("True", agent.get("n1").getStatus().getConditions().get(0).getStatus());

            BlockingQueue<Node> seen = new LinkedBlockingQueue<>();
            AutoCloseable watch = agent.watch("n1", seen::add, t -> { });
            assertEquals("n1", seen.poll(30, TimeUnit.SECONDS).getMetadata().getName(), "the listed Node");
            agent.patchStatus("n1", "[{\"op\":\"replace\",\"path\":\"/status/conditions/0/status\",\"value\":\"False\"}]");
            assertEquals("False", api.client().nodes().withName("n1").get().getStatus().getConditions().get(0).getStatus());
            Node watched;
            do {
                watched = seen.poll(30, TimeUnit.SECONDS);
            } while (watched != null && !"False".equals(watched.getStatus().getConditions().get(0).getStatus()));
            assertTrue(watched != null, "the watch delivers the patched Node");
            watch.close();
        }
    }

    @Test
    void theFrontSpeaksOnlyTlsWithACertificateOfTheServiceAccountsCa(@TempDir Path dir) throws Exception {
        InClusterConfig pod = podConfig();
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        assertThrows(IOException.class, () -> plain.send(HttpRequest.newBuilder(
                URI.create("http://" + pod.host() + ":" + pod.port() + "/api/v1/nodes/n1"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()),
                "plain HTTP is not answered");

        SelfSignedCertificate other = SelfSignedCertificate.create("localhost");
        try {
            Path otherCa = Files.copy(Path.of(other.certificatePath()), dir.resolve("ca.crt"));
            InClusterConfig wrongCa = new InClusterConfig(pod.host(), pod.port(), otherCa, pod.tokenFile());
            try (VertxNodeApi agent = new VertxNodeApi(vertx, wrongCa)) {
                ApiException e = assertThrows(ApiException.class, () -> agent.get("n1"));
                assertEquals(0, e.code(), "no answer: the handshake failed");
            }
        } finally {
            other.delete();
        }
    }

    @Test
    void theServiceAccountDirectoryHoldsACaAndAToken() throws Exception {
        InClusterConfig pod = podConfig();
        assertEquals("localhost", pod.host());
        assertTrue(Files.readString(pod.caFile()).startsWith("-----BEGIN CERTIFICATE-----"));
        assertTrue(!Files.readString(pod.tokenFile()).isBlank());
        Path dir = pod.tokenFile().getParent();
        api.close();
        assertTrue(Files.notExists(dir), "closing the API server removes the service account directory");
        api = MockApi.start(vertx);
    }
}
