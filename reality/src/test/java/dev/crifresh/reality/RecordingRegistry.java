package dev.crifresh.reality;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A registry that only listens: one tiny image ({@link OciLayout}) served over the OCI distribution API on several
 * loopback ports, each port one registry host ({@code 127.0.0.1:<port>}), recording the {@code Authorization}
 * header of every request per host. A request without the header, or with one other than the host's accepted
 * header, is answered {@code 401} with {@code WWW-Authenticate: Basic} (so containerd sends the credential it holds,
 * once, and gives up when it is refused); by default no header is accepted, so a pull ends after containerd has
 * shown what it sends. The recorded headers are what containerd sent: the judge of the differential test.
 */
final class RecordingRegistry implements AutoCloseable {
    /** One request a host received: its method, path and {@code Authorization} header (null when absent). */
    record Request(String host, String method, String path, String authorization) {
        @Override
        public String toString() {
            // never the header itself: it is a credential
            return method + " " + host + path + (authorization == null ? " (no Authorization)" : " (Authorization)");
        }
    }

    private final List<HttpServer> servers = new ArrayList<>();
    private final List<String> hosts = new ArrayList<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, String> accepted = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "recording-registry");
        t.setDaemon(true);
        return t;
    });
    private final Path blobs;
    private final String manifestDigest;
    private final byte[] manifest;

    private RecordingRegistry(Path blobs, String manifestDigest) throws IOException {
        this.blobs = blobs;
        this.manifestDigest = manifestDigest;
        this.manifest = Files.readAllBytes(blobs.resolve(manifestDigest.substring("sha256:".length())));
    }

    /** Starts {@code count} hosts on loopback ports the kernel chooses, serving the image written into {@code dir}. */
    static RecordingRegistry start(Path dir, int count) {
        OciLayout image = OciLayout.write(dir, "v1", "differential");
        try {
            RecordingRegistry r = new RecordingRegistry(dir.resolve("blobs/sha256"), image.manifestDigest());
            for (int i = 0; i < count; i++) {
                HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
                String host = "127.0.0.1:" + server.getAddress().getPort();
                server.createContext("/", exchange -> r.handle(host, exchange));
                server.setExecutor(r.executor);
                server.start();
                r.servers.add(server);
                r.hosts.add(host);
            }
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the recording registry", e);
        }
    }

    /** The registry hosts, {@code 127.0.0.1:<port>}, in the order they were started. */
    List<String> hosts() {
        return List.copyOf(hosts);
    }

    /** From now on {@code host} answers {@code authorization} (a whole header value) with the image; null: none. */
    void accept(String host, String authorization) {
        if (authorization == null) {
            accepted.remove(host);
        } else {
            accepted.put(host, authorization);
        }
    }

    /** The image's reference on {@code host}. */
    static String image(String host) {
        return host + "/differential/probe:v1";
    }

    /** Every request recorded since the last {@link #clear()}, in arrival order. */
    List<Request> requests() {
        return List.copyOf(requests);
    }

    void clear() {
        requests.clear();
    }

    private void handle(String host, HttpExchange exchange) throws IOException {
        try (exchange) {
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            requests.add(new Request(host, method, path, authorization));
            if (authorization == null || !Objects.equals(accepted.get(host), authorization)) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"crifresh-differential\"");
                exchange.getResponseHeaders().add("Docker-Distribution-API-Version", "registry/2.0");
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            byte[] body;
            String type;
            if (path.equals("/v2/") || path.equals("/v2")) {
                body = "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                type = "application/json";
            } else if (path.startsWith("/v2/differential/probe/manifests/")) {
                String ref = path.substring(path.lastIndexOf('/') + 1);
                if (!ref.equals("v1") && !ref.equals(manifestDigest)) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                body = manifest;
                type = "application/vnd.oci.image.manifest.v1+json";
                exchange.getResponseHeaders().add("Docker-Content-Digest", manifestDigest);
            } else if (path.startsWith("/v2/differential/probe/blobs/sha256:")) {
                Path blob = blobs.resolve(path.substring(path.lastIndexOf(':') + 1));
                if (!blob.normalize().startsWith(blobs) || !Files.isRegularFile(blob)) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                body = Files.readAllBytes(blob);
                type = "application/octet-stream";
                exchange.getResponseHeaders().add("Docker-Content-Digest", "sha256:" + blob.getFileName());
            } else {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getResponseHeaders().add("Content-Type", type);
            exchange.getResponseHeaders().add("Docker-Distribution-API-Version", "registry/2.0");
            if (method.equals("HEAD")) {
                exchange.getResponseHeaders().add("Content-Length", Integer.toString(body.length));
                exchange.sendResponseHeaders(200, -1);
            } else {
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        }
    }

    @Override
    public void close() {
        servers.forEach(s -> s.stop(0));
        executor.shutdownNow();
    }
}
