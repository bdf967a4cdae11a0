package dev.crifresh.reality;

import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's {@code docker-registry} (distribution 2.8) on a loopback port chosen by the kernel, with htpasswd
 * (bcrypt, {@code htpasswd -B}) basic auth for every request. The registry reads the htpasswd file again when
 * it changes, so {@link #rotate} rotates the credential without a restart, as a real registry's operator does.
 */
public final class RealRegistry implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (127\\.0\\.0\\.1:\\d+)");

    private final Process process;
    private final Path dir;
    private final String host;
    private volatile Credential credential;

    private RealRegistry(Process process, Path dir, String host, Credential credential) {
        this.process = process;
        this.dir = dir;
        this.host = host;
        this.credential = credential;
    }

    /** Starts the registry with its storage, config and htpasswd in {@code dir}; only {@code credential} may log in. */
    public static RealRegistry start(Path dir, Credential credential) {
        try {
            Files.createDirectories(dir.resolve("data"));
            writeHtpasswd(dir, credential);
            Commands.write(dir.resolve("config.yml"), """
                    version: 0.1
                    log:
                      level: info
                      accesslog:
                        disabled: true
                    storage:
                      filesystem:
                        rootdirectory: %s
                    http:
                      addr: 127.0.0.1:0
                      secret: crifresh-reality-not-a-secret
                    auth:
                      htpasswd:
                        realm: crifresh-reality
                        path: %s
                    """.formatted(dir.resolve("data"), dir.resolve("htpasswd")));
            Path log = dir.resolve("registry.log");
            Process p = new ProcessBuilder(Prerequisites.REGISTRY, "serve", dir.resolve("config.yml").toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            String host = Waits.until(Duration.ofSeconds(30), "docker-registry to listen (log " + log + ")", () -> {
                if (!p.isAlive()) {
                    throw new IllegalStateException("docker-registry exited " + p.exitValue() + ": "
                            + Prerequisites.readOrNull(log));
                }
                String text = Prerequisites.readOrNull(log);
                Matcher m = text == null ? null : LISTENING.matcher(text);
                return m != null && m.find() ? m.group(1) : null;
            });
            return new RealRegistry(p, dir, host, credential);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start docker-registry in " + dir, e);
        }
    }

    /** {@code 127.0.0.1:<port>}: the registry host as image references and containerd's config name it. */
    public String host() {
        return host;
    }

    /**
     * From now on only {@code next} logs in: the htpasswd file is written anew beside the old one and renamed
     * over it. Returns once the registry refuses the old credential and accepts the new one.
     */
    public void rotate(Credential next) {
        Credential previous = credential;
        writeHtpasswd(dir, next);
        credential = next;
        Waits.until(Duration.ofSeconds(30), "the registry to accept only the rotated credential",
                () -> status(next) == 200 && status(previous) == 401 ? Boolean.TRUE : null);
    }

    /** Pushes an OCI layout as {@code <host>/<repository>:<tag>} with {@code skopeo copy}, logged in. */
    public String push(OciLayout image, String repository, String tag) {
        String ref = host + "/" + repository + ":" + tag;
        Commands.check(List.of("skopeo", "copy", "--quiet", "--dest-tls-verify=false",
                "--dest-creds", credential.username() + ":" + credential.password(),
                image.reference(), "docker://" + ref));
        return ref;
    }

    /** The HTTP status of {@code GET /v2/} with {@code credential}: 200 accepted, 401 refused. */
    public int status(Credential login) {
        try {
            java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            String basic = java.util.Base64.getEncoder().encodeToString(
                    (login.username() + ":" + login.password()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            java.net.http.HttpRequest req = java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://" + host + "/v2/"))
                    .header("Authorization", "Basic " + basic).timeout(Duration.ofSeconds(10)).build();
            return client.send(req, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void writeHtpasswd(Path dir, Credential credential) {
        Path next = dir.resolve("htpasswd.next");
        Commands.check(List.of("htpasswd", "-B", "-b", "-c", next.toString(), credential.username(), credential.password()));
        try {
            Files.move(next, dir.resolve("htpasswd"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace " + dir.resolve("htpasswd"), e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
