package dev.crifresh.agent.testing;

import dev.crifresh.agent.kube.InClusterConfig;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * What a pod sees of the mock API server: HTTPS on a {@link TlsFront}, a service account directory
 * with {@code ca.crt} and a {@code token} the test rotates as the kubelet does (a new file moved into
 * place; the server then accepts only the new token), and the environment variables the kubelet injects.
 */
public final class InCluster implements AutoCloseable {
    private final MockApi api;
    private final TlsFront front;
    private final Path serviceAccount;

    public InCluster(Vertx vertx, MockApi api, Path dir, String firstToken) throws Exception {
        this.api = api;
        this.front = new TlsFront(vertx, api.port());
        this.serviceAccount = Files.createDirectories(dir.resolve("serviceaccount"));
        Files.copy(front.caPem(), serviceAccount.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
        rotateToken(firstToken);
    }

    /** Writes {@code token} as the kubelet does (atomically) and makes it the only one the server accepts. */
    public void rotateToken(String token) throws IOException {
        writeToken(token);
        api.acceptOnly(Set.of(token));
    }

    /** Replaces the token file without telling the server (a rotation the server does not know yet). */
    public void writeToken(String token) throws IOException {
        Path next = serviceAccount.resolve("..token.tmp");
        Files.writeString(next, token + "\n", StandardCharsets.UTF_8);
        Files.move(next, serviceAccount.resolve("token"), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    public InClusterConfig config() {
        return InClusterConfig.fromEnvironment(env()).orElseThrow();
    }

    /** The variables of a pod's container that point at this API server. */
    public Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("KUBERNETES_SERVICE_HOST", "localhost");
        env.put("KUBERNETES_SERVICE_PORT", Integer.toString(front.port()));
        env.put(InClusterConfig.SERVICE_ACCOUNT_DIR_ENV, serviceAccount.toString());
        return env;
    }

    public TlsFront front() {
        return front;
    }

    public Path serviceAccountDir() {
        return serviceAccount;
    }

    @Override
    public void close() throws ExecutionException, TimeoutException {
        front.close();
    }
}
