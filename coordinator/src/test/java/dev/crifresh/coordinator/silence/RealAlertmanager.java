package dev.crifresh.coordinator.silence;

import static org.junit.jupiter.api.Assertions.fail;

import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Alertmanager ({@code /usr/bin/prometheus-alertmanager}, package prometheus-alertmanager) on a
 * loopback port, with its storage in a temporary directory and clustering off ({@code --cluster.listen-address=}).
 * Public for the rollout's silence test. Missing binary: the test is skipped with one line, except under {@code CI=true}, where it fails.
 */
public final class RealAlertmanager implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/prometheus-alertmanager");

    public final String url;
    private final Process process;
    private final Path log;
    private final HttpClient http = HttpClient.newHttpClient();

    private RealAlertmanager(String url, Process process, Path log) {
        this.url = url;
        this.process = process;
        this.log = log;
    }

    public static RealAlertmanager start(Path dir) throws IOException {
        requireBinary();
        Path config = dir.resolve("alertmanager.yml");
        Files.writeString(config, "route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n");
        int port = freePort();
        Path log = dir.resolve("alertmanager.log");
        Process p = new ProcessBuilder(BINARY.toString(), "--config.file=" + config, "--storage.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--cluster.listen-address=", "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        RealAlertmanager am = new RealAlertmanager("http://127.0.0.1:" + port, p, log);
        Poll.until(Duration.ofMinutes(2), "Alertmanager to be ready on port " + port, () -> !p.isAlive() || am.ready());
        if (!p.isAlive()) {
            fail("Alertmanager exited: " + Files.readString(log));
        }
        return am;
    }

    static void requireBinary() {
        if (!Files.isExecutable(BINARY)) {
            String why = BINARY + " is missing (Debian: apt-get install prometheus-alertmanager; .ci/run installs it)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why);
            }
            Assumptions.abort(why);
        }
    }

    private boolean ready() {
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    public HttpResponse<String> get(String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url + path)).GET().build());
    }

    public HttpResponse<String> post(String path, String json) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
