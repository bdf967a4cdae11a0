package dev.crifresh.coordinator.report;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.WebClient;

/** Pushes the run's metrics to a Prometheus Pushgateway, replacing the group {@code job="crifresh-rollout"}. */
public final class Pushgateway {
    public static final String JOB = "crifresh-rollout";

    private Pushgateway() {
    }

    /** The URL the metrics are PUT to: {@code <base>/metrics/job/crifresh-rollout}. */
    public static String target(String baseUrl) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        return base + "/metrics/job/" + JOB;
    }

    public static Future<Void> push(Vertx vertx, String baseUrl, String metrics) {
        WebClient client = WebClient.create(vertx);
        return client.putAbs(target(baseUrl))
                .putHeader("Content-Type", "text/plain; version=0.0.4")
                .sendBuffer(Buffer.buffer(metrics))
                .<Void>compose(response -> response.statusCode() / 100 == 2
                        ? Future.succeededFuture()
                        : Future.failedFuture("the Pushgateway answered " + response.statusCode() + " " + response.statusMessage()))
                .onComplete(ar -> client.close());
    }
}
