package dev.crifresh.sim.cli;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Talks to a running {@code crifresh-sim serve} through its control endpoint, found at the API server
 * named by the kubeconfig's current context (the kubeconfig {@code serve} wrote).
 */
final class ControlClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** An answer: the HTTP status and the JSON body. */
    record Answer(int status, JsonNode body) {
        String error() {
            return body.path("error").asString("HTTP " + status);
        }
    }

    private final String server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    private ControlClient(String server) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
    }

    /**
     * The client for the cluster of {@code kubeconfig}, or of {@code $KUBECONFIG} (its first file) when null.
     *
     * @throws UsageError naming the kubeconfig when it cannot be read or names no server
     */
    static ControlClient of(Path kubeconfig) {
        Path file = kubeconfig;
        if (file == null) {
            String env = System.getenv("KUBECONFIG");
            if (env == null || env.isBlank()) {
                throw new UsageError("no kubeconfig: pass --kubeconfig FILE (the one serve wrote) or set KUBECONFIG");
            }
            file = Path.of(env.split(File.pathSeparator)[0]);
        }
        JsonNode config;
        try {
            config = YAMLMapper.builder().build().readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UsageError("cannot read the kubeconfig " + file + ": " + e.getMessage());
        } catch (JacksonException e) {
            throw new UsageError("the kubeconfig " + file + " is not YAML: " + e.getOriginalMessage());
        }
        String context = config.path("current-context").asString("");
        String cluster = "";
        for (JsonNode c : config.path("contexts")) {
            if (context.equals(c.path("name").asString(""))) {
                cluster = c.path("context").path("cluster").asString("");
            }
        }
        for (JsonNode c : config.path("clusters")) {
            if (cluster.equals(c.path("name").asString(""))) {
                String server = c.path("cluster").path("server").asString("");
                if (!server.isEmpty()) {
                    return new ControlClient(server);
                }
            }
        }
        throw new UsageError("the kubeconfig " + file + " names no server for its current context '" + context + "'");
    }

    Answer post(String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(server + path)).timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json == null ? "{}" : json)).build());
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(server + path)).timeout(TIMEOUT).GET().build());
    }

    private Answer send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException("no simulated cluster answers at " + server + " (is crifresh-sim serve running?): "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e);
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (JacksonException e) {
            throw new IOException(server + " is not a crifresh-sim serve (HTTP " + response.statusCode()
                    + " for " + request.uri().getPath() + ")");
        }
        return new Answer(response.statusCode(), body);
    }

    /** A user mistake: one line, exit 2. */
    static final class UsageError extends RuntimeException {
        UsageError(String message) {
            super(message);
        }
    }
}
