package dev.crifresh.sim.serve;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.publish.PublishedAttestation;
import dev.crifresh.sim.node.SimulatedNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.Optional;

/**
 * What port 9402 of a node's agent pod is on a real cluster, for one simulated node, on its own
 * loopback port that stays the same across the node's reboots: {@code /metrics} is the scrape of the
 * real agent running on the node now (Prometheus text, or OpenMetrics when asked for), {@code /attestation}
 * its last published claims; while the node reboots (no agent) both answer 503, as a target that is
 * down would.
 */
final class NodeMetricsServer {
    static final String OPENMETRICS = "application/openmetrics-text";
    static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final SimulatedNode node;
    private final HttpServer server;

    private NodeMetricsServer(SimulatedNode node, HttpServer server) {
        this.node = node;
        this.server = server;
    }

    /** Listens on 127.0.0.1:{@code port} (0: any free port). */
    static Future<NodeMetricsServer> start(Vertx vertx, SimulatedNode node, int port) {
        HttpServer server = vertx.createHttpServer();
        server.requestHandler(request -> answer(node, request));
        return server.listen(port, "127.0.0.1").map(s -> new NodeMetricsServer(node, s));
    }

    private static void answer(SimulatedNode node, HttpServerRequest request) {
        Optional<AgentRuntime> agent = node.agentRuntime();
        switch (request.path()) {
            case "/metrics" -> {
                if (agent.isEmpty()) {
                    down(node, request);
                    return;
                }
                String accept = request.getHeader("accept");
                String type = accept != null && accept.contains(OPENMETRICS)
                        ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
                request.response().putHeader("content-type", type).end(agent.get().metrics().registry().scrape(type));
            }
            case "/attestation" -> {
                Optional<String> claims = agent.flatMap(AgentRuntime::published).map(PublishedAttestation::claimsJson);
                if (claims.isEmpty()) {
                    down(node, request);
                    return;
                }
                request.response().putHeader("content-type", "application/json").end(claims.get());
            }
            default -> request.response().setStatusCode(404).putHeader("content-type", "text/plain; charset=utf-8")
                    .end("not found; try /metrics or /attestation\n");
        }
    }

    private static void down(SimulatedNode node, HttpServerRequest request) {
        request.response().setStatusCode(503).putHeader("content-type", "text/plain; charset=utf-8")
                .end("no agent runs on " + node.name() + " now (" + node.state().name().toLowerCase(Locale.ROOT)
                        + ", agent " + node.agentMode().wire() + ")\n");
    }

    String nodeName() {
        return node.name();
    }

    int port() {
        return server.actualPort();
    }

    Future<Void> close() {
        return server.close();
    }
}
