package dev.crifresh.mockapi;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.util.Locale;
import java.util.Set;

/**
 * A loopback front for the mock API server that serves watches the way kube-apiserver does for clients
 * that do not speak WebSocket. fabric8's mock only watches over WebSocket (what fabric8's own clients
 * use) and answers an ordinary {@code GET …?watch=true} with 400; kubectl and client-go watch with a
 * chunked HTTP response of one JSON event per line ({@code kubectl wait}, {@code kubectl get -w}). Here
 * such a request opens the same watch on the mock over WebSocket and streams each event as a line.
 * Everything else — requests and WebSocket watches — is passed through unchanged, so a kubeconfig can
 * point every tool at this front.
 */
public final class HttpWatchGateway {
    private static final Set<CharSequence> HOP_BY_HOP = Set.of("connection", "keep-alive", "transfer-encoding",
            "upgrade", "host", "content-length");

    private final HttpServer server;
    private final HttpClientAgent http;
    private final WebSocketClient webSockets;

    private HttpWatchGateway(HttpServer server, HttpClientAgent http, WebSocketClient webSockets) {
        this.server = server;
        this.http = http;
        this.webSockets = webSockets;
    }

    /** Listens on 127.0.0.1:{@code port} (0: any free port) in front of the mock at 127.0.0.1:{@code upstreamPort}. */
    public static Future<HttpWatchGateway> start(Vertx vertx, int port, int upstreamPort) {
        HttpClientAgent http = vertx.createHttpClient();
        WebSocketClient webSockets = vertx.createWebSocketClient();
        HttpServer server = vertx.createHttpServer();
        Upstream upstream = new Upstream(http, webSockets, upstreamPort);
        server.requestHandler(upstream::handle);
        return server.listen(port, "127.0.0.1").map(s -> new HttpWatchGateway(s, http, webSockets));
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server.close().eventually(http::close).eventually(webSockets::close);
    }

    private record Upstream(HttpClientAgent http, WebSocketClient webSockets, int port) {
        void handle(HttpServerRequest request) {
            if (request.headers().contains(HttpHeaders.UPGRADE, "websocket", true)) {
                pipeWebSocket(request);
            } else if (request.method() == HttpMethod.GET && isWatch(request)) {
                streamWatch(request);
            } else {
                forward(request);
            }
        }

        private static boolean isWatch(HttpServerRequest request) {
            String watch = request.getParam("watch");
            return "true".equals(watch) || "1".equals(watch);
        }

        private void forward(HttpServerRequest request) {
            request.body().compose(body -> http.request(new RequestOptions().setMethod(request.method())
                            .setHost("127.0.0.1").setPort(port).setURI(request.uri()).setHeaders(copy(request.headers())))
                    .compose(out -> out.send(body))
                    .compose(in -> in.body().map(inBody -> {
                        HttpServerResponse response = request.response().setStatusCode(in.statusCode());
                        response.headers().addAll(copy(in.headers()));
                        response.end(inBody);
                        return null;
                    })))
                    .onFailure(e -> fail(request.response(), 502, "the mock API server did not answer: " + e.getMessage()));
        }

        private void streamWatch(HttpServerRequest request) {
            HttpServerResponse response = request.response();
            request.pause();
            webSockets.connect(options(request)).onComplete(connected -> {
                request.resume();
                if (connected.failed()) {
                    fail(response, 502, "the mock API server refused the watch: " + connected.cause().getMessage());
                    return;
                }
                WebSocket watch = connected.result();
                response.setChunked(true).setStatusCode(200).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
                response.write(Buffer.buffer());
                watch.textMessageHandler(event -> {
                    if (!response.ended() && !response.closed()) {
                        response.write(event.endsWith("\n") ? event : event + "\n");
                    }
                });
                watch.closeHandler(v -> {
                    if (!response.ended() && !response.closed()) {
                        response.end();
                    }
                });
                response.closeHandler(v -> watch.close());
            });
        }

        private void pipeWebSocket(HttpServerRequest request) {
            WebSocketConnectOptions options = options(request);
            request.pause();
            webSockets.connect(options).onComplete(connected -> {
                request.resume();
                if (connected.failed()) {
                    fail(request.response(), 502, "the mock API server refused the WebSocket: " + connected.cause().getMessage());
                    return;
                }
                WebSocket upstream = connected.result();
                request.toWebSocket().onComplete(accepted -> {
                    if (accepted.failed()) {
                        upstream.close();
                        return;
                    }
                    ServerWebSocket client = accepted.result();
                    upstream.textMessageHandler(client::writeTextMessage);
                    upstream.binaryMessageHandler(client::writeBinaryMessage);
                    client.textMessageHandler(upstream::writeTextMessage);
                    client.binaryMessageHandler(upstream::writeBinaryMessage);
                    upstream.closeHandler(v -> {
                        if (!client.isClosed()) {
                            client.close();
                        }
                    });
                    client.closeHandler(v -> {
                        if (!upstream.isClosed()) {
                            upstream.close();
                        }
                    });
                });
            });
        }

        private WebSocketConnectOptions options(HttpServerRequest request) {
            WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                    .setURI(request.uri());
            copy(request.headers()).forEach(h -> {
                if (!h.getKey().toLowerCase(Locale.ROOT).startsWith("sec-websocket")) {
                    options.addHeader(h.getKey(), h.getValue());
                }
            });
            return options;
        }

        private static MultiMap copy(MultiMap headers) {
            MultiMap out = MultiMap.caseInsensitiveMultiMap();
            headers.forEach(h -> {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    out.add(h.getKey(), h.getValue());
                }
            });
            return out;
        }

        private static void fail(HttpServerResponse response, int code, String message) {
            if (!response.ended() && !response.closed()) {
                response.setStatusCode(code).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":" + code
                                + ",\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "'") + "\"}");
            }
        }
    }
}
