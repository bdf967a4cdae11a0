package dev.crifresh.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentHttpServerTest {
    private Vertx vertx;
    private AgentHttpServer server;
    private final AtomicBoolean ready = new AtomicBoolean();
    private final AtomicReference<String> claims = new AtomicReference<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        AgentMetrics metrics = new AgentMetrics();
        server = AgentHttpServer.start(vertx, 0, metrics, ready::get, () -> Optional.ofNullable(claims.get()))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close();
    }

    private HttpResponse<String> get(String path, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void probesFollowReadiness() throws Exception {
        assertEquals(200, get("/healthz", null).statusCode());
        assertEquals(503, get("/readyz", null).statusCode());
        assertEquals(503, get("/attestation", null).statusCode());
        ready.set(true);
        claims.set("{\"sub\":\"n1\"}");
        assertEquals(200, get("/readyz", null).statusCode());
        HttpResponse<String> a = get("/attestation", null);
        assertEquals(200, a.statusCode());
        assertEquals("{\"sub\":\"n1\"}", a.body());
        assertEquals("application/json", a.headers().firstValue("content-type").orElseThrow());
        assertEquals(404, get("/nothing", null).statusCode());
        assertEquals(404, get("/healthz/x", null).statusCode());
        assertEquals(200, get("/readyz?verbose=1", null).statusCode(), "a query string does not change the path");
    }

    @Test
    void onlyGetIsAllowed() throws Exception {
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals("GET", post.headers().firstValue("allow").orElseThrow());
    }

    @Test
    void metricsNegotiatesPrometheusTextOrOpenMetrics() throws Exception {
        HttpResponse<String> text = get("/metrics", "text/plain");
        assertEquals(200, text.statusCode());
        assertTrue(text.headers().firstValue("content-type").orElseThrow().startsWith("text/plain; version=0.0.4"));
        assertTrue(text.body().contains("crifresh_node_fresh -1.0"), text.body());
        HttpResponse<String> om = get("/metrics",
                "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
        assertTrue(om.headers().firstValue("content-type").orElseThrow().startsWith("application/openmetrics-text"));
        assertTrue(om.body().trim().endsWith("# EOF"), om.body());
    }
}
