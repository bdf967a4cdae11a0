package dev.crifresh.sim.external;

import dev.crifresh.sim.scenario.AlertSpec;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A stand-in for Prometheus' HTTP API, on loopback: {@code GET /api/v1/alerts} answers the scenario's alerts
 * in Prometheus' format ({@code {"status":"success","data":{"alerts":[{"labels":{"alertname":…},"state":"firing",…}]}}}).
 * Every alert fires from the start; one with {@code clearsAfterSeconds} stops firing that long after the
 * run began. Anything else is 404.
 */
public final class SimulatedPrometheus implements AutoCloseable {
    private final HttpServer server;
    private final List<AlertSpec> alerts;
    private final Supplier<Instant> runStartedAt;
    private final Instant firingSince = Instant.now();
    private final Set<String> cleared = ConcurrentHashMap.newKeySet();

    private SimulatedPrometheus(HttpServer server, List<AlertSpec> alerts, Supplier<Instant> runStartedAt) {
        this.server = server;
        this.alerts = alerts;
        this.runStartedAt = runStartedAt;
    }

    /** Starts it on a free loopback port. Blocking: call from a plain thread. */
    public static SimulatedPrometheus start(Vertx vertx, List<AlertSpec> alerts, Supplier<Instant> runStartedAt) {
        SimulatedPrometheus[] self = new SimulatedPrometheus[1];
        HttpServer server = vertx.createHttpServer().requestHandler(request -> {
            if ("/api/v1/alerts".equals(request.path()) && request.method().name().equals("GET")) {
                request.response().putHeader("content-type", "application/json").end(self[0].body().encode());
            } else {
                request.response().setStatusCode(404).end("404 page not found");
            }
        });
        self[0] = new SimulatedPrometheus(server, List.copyOf(alerts), runStartedAt);
        try {
            server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the simulated Prometheus did not start: " + e.getMessage(), e);
        }
        return self[0];
    }

    /** The base URL, as {@code --prometheus-url} takes it. */
    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** The names of the alerts firing now. */
    public List<String> firing() {
        Instant started = runStartedAt.get();
        Instant now = Instant.now();
        return alerts.stream().filter(a -> !cleared.contains(a.name())).filter(a -> a.clearsAfter() == null || started == null
                || now.isBefore(started.plus(a.clearsAfter()))).map(AlertSpec::name).toList();
    }

    /** The alert stops firing now (what an operator fixing its cause does; tests use it to end a block on cue). */
    public void clear(String name) {
        cleared.add(name);
    }

    private JsonObject body() {
        JsonArray list = new JsonArray();
        for (String name : firing()) {
            list.add(new JsonObject()
                    .put("labels", new JsonObject().put("alertname", name).put("severity", "warning"))
                    .put("annotations", new JsonObject().put("summary", name + " is firing"))
                    .put("state", "firing")
                    .put("activeAt", firingSince.toString())
                    .put("value", "1e+00"));
        }
        return new JsonObject().put("status", "success").put("data", new JsonObject().put("alerts", list));
    }

    @Override
    public void close() {
        server.close();
    }
}
