package dev.crifresh.agent.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /metrics} (Prometheus text, or OpenMetrics when the Accept header asks for it),
 * {@code /healthz}, {@code /readyz} (ready once a condition was published) and {@code /attestation}
 * (the claims of the last published attestation, as signed).
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
        Router router = Router.router(vertx);
        router.get("/metrics").handler(rc -> metrics(rc, metrics));
        router.get("/healthz").handler(rc -> text(rc, 200, "ok\n"));
        router.get("/readyz").handler(rc -> {
            if (ready.getAsBoolean()) {
                text(rc, 200, "ready\n");
            } else {
                text(rc, 503, "not ready: no condition published yet\n");
            }
        });
        router.get("/attestation").handler(rc -> {
            Optional<String> json = attestationJson.get();
            if (json.isPresent()) {
                rc.response().putHeader("content-type", "application/json").end(json.get());
            } else {
                rc.response().setStatusCode(503).putHeader("content-type", "application/json")
                        .end("{\"error\":\"no attestation published yet\"}");
            }
        });
        return vertx.createHttpServer().requestHandler(router).listen(port, "0.0.0.0").map(AgentHttpServer::new);
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server.close();
    }

    private static void metrics(RoutingContext rc, AgentMetrics metrics) {
        String accept = rc.request().getHeader("accept");
        String contentType = accept != null && accept.contains(OPENMETRICS)
                ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
        rc.response().putHeader("content-type", contentType).end(metrics.registry().scrape(contentType));
    }

    private static void text(RoutingContext rc, int status, String body) {
        rc.response().setStatusCode(status).putHeader("content-type", "text/plain; charset=utf-8").end(body);
    }
}
