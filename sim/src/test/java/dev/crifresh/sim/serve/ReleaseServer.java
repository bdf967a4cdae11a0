package dev.crifresh.sim.serve;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * GitHub's release downloads on loopback, for action/run.sh: a folder of assets published as
 * {@code <server>/<owner>/<repo>/releases/download/v<version>/<name>} (what {@code GITHUB_SERVER_URL} points at),
 * everything else 404. Logs every request it answers.
 */
final class ReleaseServer implements AutoCloseable {
    private final HttpServer http;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Path> releases = new ConcurrentHashMap<>();

    ReleaseServer() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            requests.add(exchange.getRequestMethod() + " " + path);
            Path file = null;
            for (Map.Entry<String, Path> release : releases.entrySet()) {
                String name = path.startsWith(release.getKey()) ? path.substring(release.getKey().length()) : "";
                if (!name.isEmpty() && !name.contains("/") && Files.isRegularFile(release.getValue().resolve(name))) {
                    file = release.getValue().resolve(name);
                }
            }
            if (file == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                byte[] body = Files.readAllBytes(file);
                exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        http.start();
    }

    /** The value for GITHUB_SERVER_URL. */
    String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    /** Serves the files of {@code assets} as the release v{@code version} of {@code repo} (owner/name). */
    void publish(String repo, String version, Path assets) {
        releases.put("/" + repo + "/releases/download/v" + version + "/", assets);
    }

    /** "GET /path" per request, in order. */
    List<String> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
