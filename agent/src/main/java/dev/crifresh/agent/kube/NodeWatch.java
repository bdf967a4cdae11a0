package dev.crifresh.agent.kube;

import dev.crifresh.common.retry.Retry;
import dev.crifresh.common.retry.RetryPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * List + watch of one Node by field selector, as an informer does it: list (every listed Node is
 * delivered), watch from the list's resourceVersion over a WebSocket (as fabric8 does), deliver
 * {@code ADDED}/{@code MODIFIED} Nodes, follow {@code BOOKMARK}s, re-watch from the last
 * resourceVersion when the server ends the watch after its {@code timeoutSeconds}, list again after a
 * {@code 410 Gone} or any failure (with {@link RetryPolicy}), until closed. All state lives on the API's
 * event-loop context; the token is read on a worker.
 */
final class NodeWatch {
    /** Like client-go: each watch asks the server to end it after 5–10 minutes, so connections renew. */
    static final int MIN_TIMEOUT_SECONDS = 300;
    static final int MAX_TIMEOUT_SECONDS = 600;
    /** A watch that ended sooner than this without a failure still counts as a failure (no tight loop). */
    private static final Duration SHORT_LIVED = Duration.ofSeconds(5);

    private final VertxNodeApi api;
    private final String name;
    private final Consumer<Node> onNode;
    private final Consumer<Throwable> onError;
    private volatile boolean closed;
    private WebSocket socket;
    private String resourceVersion;
    /** The failures in a row since the last Node or normal end (null: none), with the API's watch back-off. */
    private Retry failures;
    private long timer = -1;
    private long connectedAt;

    NodeWatch(VertxNodeApi api, String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
        this.api = api;
        this.name = name;
        this.onNode = onNode;
        this.onError = onError;
    }

    void start() {
        list();
    }

    void close() {
        closed = true;
        api.context().runOnContext(v -> {
            api.vertx().cancelTimer(timer);
            if (socket != null) {
                socket.close();
                socket = null;
            }
        });
    }

    private void list() {
        if (closed) {
            return;
        }
        bearer().compose(bearer -> api.exchange(HttpMethod.GET, VertxNodeApi.nodesUri(name, ""), null, null, bearer)
                .map(reply -> {
                    if (reply.status() == 401) {
                        api.token().rejected(bearer);
                    }
                    return reply;
                }))
                .onSuccess(reply -> {
                    if (!reply.ok()) {
                        failed(VertxNodeApi.failure("list", reply));
                        return;
                    }
                    try {
                        JsonNode list = VertxNodeApi.parse("list", reply.body());
                        resourceVersion = list.path("metadata").path("resourceVersion").asString(null);
                        for (JsonNode item : list.path("items")) {
                            deliver(NodeJson.read(item));
                        }
                    } catch (ApiException | RuntimeException e) {
                        failed(e);
                        return;
                    }
                    watch();
                })
                .onFailure(this::failed);
    }

    private void watch() {
        if (closed) {
            return;
        }
        int timeout = ThreadLocalRandom.current().nextInt(MIN_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS);
        String query = "&watch=true&allowWatchBookmarks=true&timeoutSeconds=" + timeout
                + (resourceVersion == null ? "" : "&resourceVersion=" + resourceVersion);
        InClusterConfig config = api.config();
        bearer().compose(bearer -> {
            WebSocketConnectOptions options = new WebSocketConnectOptions().setSsl(true)
                    .setHost(config.host()).setPort(config.port()).setURI(VertxNodeApi.nodesUri(name, query))
                    .putHeader("Authorization", "Bearer " + bearer);
            return api.webSockets().connect(options).recover(t -> {
                if (t instanceof UpgradeRejectedException rejected && rejected.getStatus() == 401) {
                    api.token().rejected(bearer);
                }
                return Future.failedFuture(t);
            });
        }).onSuccess(ws -> {
            if (closed) {
                ws.close();
                return;
            }
            socket = ws;
            connectedAt = System.nanoTime();
            ws.textMessageHandler(text -> event(ws, text));
            ws.binaryMessageHandler(bytes -> event(ws, bytes.toString()));
            ws.exceptionHandler(t -> {
                // a connection closed under a closed watch (the agent stopping) is no failure to report
                if (!closed && ws == socket) {
                    onError.accept(t);
                }
            });
            ws.closeHandler(v -> ended(ws));
        }).onFailure(this::failed);
    }

    private void event(WebSocket ws, String text) {
        if (closed || ws != socket) {
            return;
        }
        JsonNode event;
        try {
            event = VertxNodeApi.parse("watch", Buffer.buffer(text));
        } catch (ApiException e) {
            onError.accept(e);
            return;
        }
        String type = event.path("type").asString("");
        JsonNode object = event.path("object");
        switch (type) {
            case "ADDED", "MODIFIED" -> {
                remember(object);
                failures = null;
                deliver(NodeJson.read(object));
            }
            case "DELETED", "BOOKMARK" -> remember(object);
            case "ERROR" -> {
                int code = object.path("code").asInt(0);
                // 410 Gone (the resourceVersion is too old) or another error: list again after a pause
                onError.accept(new ApiException(code, "watch failed (" + code + "): "
                        + object.path("message").asString("error event"), null));
                socket = null;
                ws.close();
                retry();
            }
            default -> onError.accept(new ApiException(0, "watch: unknown event type '" + type + "'", null));
        }
    }

    private void remember(JsonNode object) {
        String rv = object.path("metadata").path("resourceVersion").asString(null);
        if (rv != null && !rv.isEmpty()) {
            resourceVersion = rv;
        }
    }

    /** The server closed the watch (its timeout, a restart) or the connection dropped. */
    private void ended(WebSocket ws) {
        if (closed || ws != socket) {
            return;
        }
        socket = null;
        if (System.nanoTime() - connectedAt >= SHORT_LIVED.toNanos() && resourceVersion != null) {
            failures = null;
            watch(); // a normal end: continue from where we are
        } else {
            onError.accept(new ApiException(0, "watch on Node " + name + " closed right after it opened", null));
            retry();
        }
    }

    private void failed(Throwable t) {
        if (closed) {
            return;
        }
        onError.accept(t);
        retry();
    }

    /** After a failure: wait, then list again (the Node may have changed while no watch was open). */
    private void retry() {
        if (closed) {
            return;
        }
        failures = (failures == null ? Retry.first(api.watchBackoff(), System.nanoTime() / 1_000_000) : failures).failed();
        long delay = Math.max(1, failures.delay().toMillis());
        timer = api.vertx().setTimer(delay, id -> {
            timer = -1;
            list();
        });
    }

    private void deliver(Node node) {
        if (!closed && name.equals(node.getMetadata().getName())) {
            onNode.accept(node);
        }
    }

    private Future<String> bearer() {
        return api.context().executeBlocking(() -> api.token().get(), false);
    }
}
