package dev.crifresh.agent.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /metrics} (Prometheus text, or OpenMetrics when the Accept header asks for it),
 * {@code /healthz}, {@code /readyz} (ready once a condition was published) and {@code /attestation}
 * (the claims of the last published attestation, as signed). GET only (405 otherwise), 404 for any
 * other path. Four fixed paths need no router: Vert.x core's server alone keeps vertx-web's classes
 * out of the agent's memory.
 */
public final class AgentHttpServer {
    static final String OPENMETRICS = "application/openmetrics-text";
    static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;

    private AgentHttpServer(HttpServer server) {
        this.server = server;
    }

    /**
     * @param port             0 for any free port
     * @param ready            whether the first publish succeeded
     * @param attestationJson  the claims JSON of the last published attestation, when there is one
     */
    public static Future<AgentHttpServer> start(Vertx vertx, int port, AgentMetrics metrics, BooleanSupplier ready,
                                                Supplier<Optional<String>> attestationJson) {
        return vertx.createHttpServer()
                .requestHandler(request -> handle(request, metrics, ready, attestationJson))
                .listen(port, "0.0.0.0").map(AgentHttpServer::new);
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server.close();
    }

    private static void handle(HttpServerRequest request, AgentMetrics metrics, BooleanSupplier ready,
                               Supplier<Optional<String>> attestationJson) {
        String path = request.path();
        boolean known = switch (path) {
            case "/metrics", "/healthz", "/readyz", "/attestation" -> true;
            default -> false;
        };
        if (!known) {
            text(request, 404, "not found\n");
            return;
        }
        if (request.method() != HttpMethod.GET) {
            request.response().putHeader("allow", "GET");
            text(request, 405, "method not allowed\n");
            return;
        }
        switch (path) {
            case "/metrics" -> metrics(request, metrics);
            case "/healthz" -> text(request, 200, "ok\n");
            case "/readyz" -> {
                if (ready.getAsBoolean()) {
                    text(request, 200, "ready\n");
                } else {
                    text(request, 503, "not ready: no condition published yet\n");
                }
            }
            default -> attestation(request, attestationJson.get());
        }
    }

    private static void attestation(HttpServerRequest request, Optional<String> json) {
        if (json.isPresent()) {
            request.response().putHeader("content-type", "application/json").end(json.get());
        } else {
            request.response().setStatusCode(503).putHeader("content-type", "application/json")
                    .end("{\"error\":\"no attestation published yet\"}");
        }
    }

    private static void metrics(HttpServerRequest request, AgentMetrics metrics) {
        String accept = request.getHeader("accept");
        String contentType = accept != null && accept.contains(OPENMETRICS)
                ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
        request.response().putHeader("content-type", contentType).end(metrics.registry().scrape(contentType));
    }

    private static void text(HttpServerRequest request, int status, String body) {
        request.response().setStatusCode(status).putHeader("content-type", "text/plain; charset=utf-8").end(body);
    }
}
