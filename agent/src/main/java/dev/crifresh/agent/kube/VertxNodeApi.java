package dev.crifresh.agent.kube;

import dev.crifresh.common.retry.RetryPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link NodeApi} straight on Vert.x core's HTTP and WebSocket clients, in-cluster only: the three calls
 * the agent makes (GET its Node, JSON Patch its status, watch it by field selector), and those of the
 * expiry leader ({@link ExpiryApi}: list Nodes, hold a Lease), over HTTPS verified
 * against the service account's CA, authenticated with the service account's bound token
 * ({@link ServiceAccountToken}: re-read every minute, and at once after a 401, then the request is sent
 * once more). It replaces the fabric8 client in the agent's process to keep the DaemonSet small
 * (docs/performance.md); fabric8 stays in the coordinator.
 *
 * <p>Requests run on one event-loop context; the blocking methods wait for them on the caller's
 * (worker) thread and must not be called on an event loop.
 */
public final class VertxNodeApi implements NodeApi, ExpiryApi, AutoCloseable {
    /** Short enough that a hung API server does not hold a worker thread for long. */
    static final int REQUEST_TIMEOUT_MS = 10_000;
    static final String JSON_PATCH = "application/json-patch+json";
    static final JsonMapper JSON = JsonMapper.builder().build();

    private final Vertx vertx;
    private final Context context;
    private final InClusterConfig config;
    private final ServiceAccountToken token;
    private final RetryPolicy watchBackoff;
    private final HttpClientAgent http;
    private final WebSocketClient webSockets;

    /** One HTTP response, read whole. */
    record Reply(int status, Buffer body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /**
     * How often the pool closes connections idle longer than the keep-alive (60 s). Vert.x's default, 1 s,
     * wakes the idle agent every second for a connection that is used once per heartbeat.
     */
    static final int POOL_CLEANER_MS = 15_000;

    public VertxNodeApi(Vertx vertx, InClusterConfig config) {
        this(vertx, config, new ServiceAccountToken(config.tokenFile()), RETRY);
    }

    /**
     * Call on a thread that is not a Vert.x worker (the requests are bound to an event-loop context
     * taken here).
     */
    public VertxNodeApi(Vertx vertx, InClusterConfig config, ServiceAccountToken token, RetryPolicy watchBackoff) {
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        if (!context.isEventLoopContext()) {
            throw new IllegalStateException("VertxNodeApi needs an event-loop context; create it off worker threads");
        }
        this.config = config;
        this.token = token;
        this.watchBackoff = watchBackoff;
        PemTrustOptions ca = new PemTrustOptions().addCertPath(config.caFile().toString());
        this.http = vertx.createHttpClient(new HttpClientOptions()
                .setSsl(true).setTrustOptions(ca).setVerifyHost(true)
                .setDefaultHost(config.host()).setDefaultPort(config.port())
                .setConnectTimeout(REQUEST_TIMEOUT_MS)
                .setKeepAliveTimeout(60), new PoolOptions().setHttp1MaxSize(2).setCleanerPeriod(POOL_CLEANER_MS));
        // A Node with many images is tens of KiB; watch events carry the whole object.
        this.webSockets = vertx.createWebSocketClient(new WebSocketClientOptions()
                .setSsl(true).setTrustOptions(ca).setVerifyHost(true)
                .setConnectTimeout(REQUEST_TIMEOUT_MS)
                .setMaxFrameSize(1 << 20).setMaxMessageSize(16 << 20)
                .setIdleTimeout(NodeWatch.MAX_TIMEOUT_SECONDS + 60).setIdleTimeoutUnit(TimeUnit.SECONDS));
    }

    @Override
    public Node get(String name) throws ApiException {
        Reply reply = call("get", HttpMethod.GET, nodePath(name), null, null);
        if (reply.status() == 404) {
            return null;
        }
        if (!reply.ok()) {
            throw failure("get", reply);
        }
        return NodeJson.read(parse("get", reply.body()));
    }

    @Override
    public void patchStatus(String name, String jsonPatch) throws ApiException {
        Reply reply = call("patch", HttpMethod.PATCH, nodePath(name) + "/status", JSON_PATCH, jsonPatch);
        if (!reply.ok()) {
            throw failure("patch", reply);
        }
    }

    @Override
    public AutoCloseable watch(String name, Consumer<Node> onNode, Consumer<Throwable> onError) {
        NodeWatch watch = new NodeWatch(this, name, onNode, onError);
        context.runOnContext(v -> watch.start());
        return watch::close;
    }

    @Override
    public List<Node> listNodes() throws ApiException {
        Reply reply = call("list", HttpMethod.GET, "/api/v1/nodes?resourceVersion=0", null, null);
        if (!reply.ok()) {
            throw failure("list", reply);
        }
        JsonNode items = parse("list", reply.body()).path("items");
        List<Node> nodes = new ArrayList<>();
        for (JsonNode item : items) {
            nodes.add(NodeJson.read(item));
        }
        return nodes;
    }

    @Override
    public Optional<LeaseRecord> lease(String namespace, String name) throws ApiException {
        Reply reply = call("get lease", HttpMethod.GET, leasePath(namespace, name), null, null);
        if (reply.status() == 404) {
            return Optional.empty();
        }
        if (!reply.ok()) {
            throw failure("get lease", reply);
        }
        return Optional.of(LeaseJson.read(parse("get lease", reply.body())));
    }

    @Override
    public void createLease(String namespace, String name, LeaseRecord lease) throws ApiException {
        String body = LeaseJson.lease(namespace, name, lease).toString();
        Reply reply = call("create lease", HttpMethod.POST, leasesPath(namespace), "application/json", body);
        if (!reply.ok()) {
            throw failure("create lease", reply);
        }
    }

    @Override
    public void updateLease(String namespace, String name, LeaseRecord current, LeaseRecord next) throws ApiException {
        String patch = LeaseJson.guardedUpdate(current, next).toString();
        Reply reply = call("update lease", HttpMethod.PATCH, leasePath(namespace, name), JSON_PATCH, patch);
        if (!reply.ok()) {
            throw failure("update lease", reply);
        }
    }

    private static String leasesPath(String namespace) {
        return "/apis/coordination.k8s.io/v1/namespaces/" + encode(namespace) + "/leases";
    }

    private static String leasePath(String namespace, String name) {
        return leasesPath(namespace) + "/" + encode(name);
    }

    /** Closes the connections; watches stop with them. */
    @Override
    public void close() {
        http.close();
        webSockets.close();
    }

    // ---- shared with NodeWatch ----

    Vertx vertx() {
        return vertx;
    }

    Context context() {
        return context;
    }

    InClusterConfig config() {
        return config;
    }

    ServiceAccountToken token() {
        return token;
    }

    RetryPolicy watchBackoff() {
        return watchBackoff;
    }

    WebSocketClient webSockets() {
        return webSockets;
    }

    /** One request on the context's event loop; {@code bearer} is the token to send. */
    Future<Reply> exchange(HttpMethod method, String uri, String contentType, String body, String bearer) {
        RequestOptions options = new RequestOptions().setMethod(method).setURI(uri)
                .setIdleTimeout(REQUEST_TIMEOUT_MS)
                .putHeader("Authorization", "Bearer " + bearer)
                .putHeader("Accept", "application/json");
        if (contentType != null) {
            options.putHeader("Content-Type", contentType);
        }
        Promise<Reply> reply = Promise.promise();
        context.runOnContext(v -> http.request(options)
                .compose(request -> body == null ? request.send() : request.send(body))
                .compose(response -> response.body().map(b -> new Reply(response.statusCode(), b)))
                .onComplete(reply));
        return reply.future();
    }

    static String nodesUri(String name, String extraQuery) {
        return "/api/v1/nodes?fieldSelector=" + encode("metadata.name=" + name) + extraQuery;
    }

    static JsonNode parse(String operation, Buffer body) throws ApiException {
        try {
            return JSON.readTree(body.getBytes());
        } catch (JacksonException e) {
            throw new ApiException(0, operation + " failed: the API server's answer is not JSON ("
                    + e.getOriginalMessage() + ")", e);
        }
    }

    /** The API server's refusal as an exception: its Status message when it sent one, never a header. */
    static ApiException failure(String operation, Reply reply) {
        String detail = "HTTP " + reply.status();
        try {
            JsonNode status = JSON.readTree(reply.body().getBytes());
            if (status.path("message").isString()) {
                detail = status.path("message").asString();
            }
        } catch (JacksonException | IllegalArgumentException e) {
            // not a Status: keep the HTTP code
        }
        return new ApiException(reply.status(), operation + " failed (" + reply.status() + "): " + detail, null);
    }

    // ---- blocking calls ----

    private Reply call(String operation, HttpMethod method, String uri, String contentType, String body)
            throws ApiException {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("blocking Kubernetes call on an event loop");
        }
        String bearer = bearer(operation);
        Reply reply = await(operation, exchange(method, uri, contentType, body, bearer));
        if (reply.status() == 401) {
            // The kubelet may have rotated the token since it was read: read it again and try once more.
            token.rejected(bearer);
            reply = await(operation, exchange(method, uri, contentType, body, bearer(operation)));
        }
        return reply;
    }

    private String bearer(String operation) throws ApiException {
        try {
            return token.get();
        } catch (IOException e) {
            throw new ApiException(0, operation + " failed: cannot read the service account token "
                    + token.file() + ": " + e.getMessage(), e);
        }
    }

    private static Reply await(String operation, Future<Reply> reply) throws ApiException {
        try {
            return reply.toCompletionStage().toCompletableFuture().get(2L * REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ApiException(0, operation + " failed: " + describe(cause), cause);
        } catch (TimeoutException e) {
            throw new ApiException(0, operation + " failed: no answer within " + 2 * REQUEST_TIMEOUT_MS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(0, operation + " interrupted", e);
        }
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return root == t ? message : t.getClass().getSimpleName() + ": " + message;
    }

    private static String nodePath(String name) {
        return "/api/v1/nodes/" + encode(name);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
