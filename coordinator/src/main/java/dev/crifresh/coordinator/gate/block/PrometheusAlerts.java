package dev.crifresh.coordinator.gate.block;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The firing alerts from Prometheus' HTTP API, {@code GET <url>/api/v1/alerts}
 * ({@code {"status":"success","data":{"alerts":[{"labels":{"alertname":…},"state":"firing"|"pending",…}]}}}),
 * with the Vert.x web client. Only {@code state: firing} counts (a pending alert has not fired yet). An
 * answer it cannot read fails the future: the caller treats that as blocking.
 */
public final class PrometheusAlerts implements AlertSource, AutoCloseable {
    private final WebClient client;
    private final String url;
    private final Duration timeout;

    public PrometheusAlerts(Vertx vertx, String baseUrl, Duration timeout) {
        this.client = WebClient.create(vertx, new WebClientOptions().setConnectTimeout((int) Math.min(
                Integer.MAX_VALUE, timeout.toMillis())));
        this.url = (baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl) + "/api/v1/alerts";
        this.timeout = timeout;
    }

    @Override
    public Future<List<String>> firing() {
        return client.getAbs(url).timeout(timeout.toMillis()).send().compose(response -> {
            if (response.statusCode() != 200) {
                return Future.failedFuture("Prometheus answered " + response.statusCode() + " for " + url);
            }
            try {
                return Future.succeededFuture(parse(response.bodyAsJsonObject()));
            } catch (RuntimeException e) {
                return Future.failedFuture("cannot read Prometheus' answer from " + url + ": " + e.getMessage());
            }
        });
    }

    static List<String> parse(JsonObject body) {
        if (body == null || !"success".equals(body.getString("status"))) {
            throw new IllegalArgumentException("status is not success");
        }
        JsonObject data = body.getJsonObject("data");
        JsonArray alerts = data == null ? null : data.getJsonArray("alerts");
        if (alerts == null) {
            throw new IllegalArgumentException("no data.alerts");
        }
        List<String> firing = new ArrayList<>();
        for (int i = 0; i < alerts.size(); i++) {
            JsonObject alert = alerts.getJsonObject(i);
            JsonObject labels = alert.getJsonObject("labels");
            String name = labels == null ? null : labels.getString("alertname");
            if ("firing".equals(alert.getString("state")) && name != null) {
                firing.add(name);
            }
        }
        return firing;
    }

    @Override
    public void close() {
        client.close();
    }
}
