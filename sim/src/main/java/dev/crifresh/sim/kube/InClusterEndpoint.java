package dev.crifresh.sim.kube;

import dev.crifresh.agent.kube.InClusterConfig;
import dev.crifresh.sim.node.HostRoot;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a pod of the simulated cluster sees of the API server, so that the simulated agents take the
 * DaemonSet's own client path (in-cluster configuration, HTTPS, bearer token): HTTPS on {@code localhost}
 * with a certificate signed by itself (the "cluster CA"), each connection piped as raw bytes to the
 * plain-HTTP mock API server (requests and WebSocket watches pass unchanged), and a service-account
 * directory holding that CA as {@code ca.crt} and a {@code token}. The mock API server does not
 * authenticate; the agents send the token as they would to kube-apiserver.
 */
public final class InClusterEndpoint implements AutoCloseable {
    private static final String HOST = "localhost";
    private static final String TOKEN = "simulated-service-account-token";
    private static final long START_TIMEOUT_S = 10;

    private final SelfSignedCertificate certificate;
    private final NetServer server;
    private final NetClient client;
    private final Path serviceAccount;
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();

    private InClusterEndpoint(Vertx vertx, String backendHost, int backendPort) throws IOException {
        certificate = SelfSignedCertificate.create(HOST);
        serviceAccount = Files.createTempDirectory("crifresh-sim-serviceaccount-");
        Files.copy(Path.of(certificate.certificatePath()), serviceAccount.resolve("ca.crt"));
        Files.writeString(serviceAccount.resolve("token"), TOKEN + "\n", StandardCharsets.UTF_8);
        client = vertx.createNetClient();
        server = vertx.createNetServer(new NetServerOptions().setSsl(true).setKeyCertOptions(certificate.keyCertOptions()))
                .connectHandler(in -> pipe(in, backendHost, backendPort));
    }

    /** Listens on a free port of {@code localhost}, in front of the mock API server at {@code backendHost:backendPort}. */
    static InClusterEndpoint start(Vertx vertx, String backendHost, int backendPort) {
        InClusterEndpoint endpoint = null;
        try {
            endpoint = new InClusterEndpoint(vertx, backendHost, backendPort);
            endpoint.server.listen(0, HOST).toCompletionStage().toCompletableFuture()
                    .get(START_TIMEOUT_S, TimeUnit.SECONDS);
            return endpoint;
        } catch (IOException | ExecutionException | TimeoutException e) {
            if (endpoint != null) {
                endpoint.close();
            }
            throw new IllegalStateException("cannot start the simulated API server's in-cluster endpoint: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the in-cluster endpoint", e);
        }
    }

    private void pipe(NetSocket in, String backendHost, int backendPort) {
        in.pause();
        open.add(in);
        in.closeHandler(v -> open.remove(in));
        client.connect(backendPort, backendHost).onSuccess(out -> {
            open.add(out);
            out.closeHandler(v -> {
                open.remove(out);
                in.close();
            });
            in.closeHandler(v -> {
                open.remove(in);
                out.close();
            });
            in.pipeTo(out);
            out.pipeTo(in);
            in.resume();
        }).onFailure(t -> in.close());
    }

    /**
     * The variables a pod's container gets, as the kubelet injects them ({@code KUBERNETES_SERVICE_HOST},
     * {@code KUBERNETES_SERVICE_PORT}), plus where the service account is mounted.
     */
    public Map<String, String> podEnvironment() {
        return Map.of("KUBERNETES_SERVICE_HOST", HOST,
                "KUBERNETES_SERVICE_PORT", Integer.toString(server.actualPort()),
                InClusterConfig.SERVICE_ACCOUNT_DIR_ENV, serviceAccount.toString());
    }

    @Override
    public void close() {
        open.forEach(NetSocket::close);
        try {
            server.close().toCompletionStage().toCompletableFuture().get(START_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // shutting down: the sockets are closed with the Vert.x instance at the latest
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
        certificate.delete();
        HostRoot.deleteTree(serviceAccount);
    }
}
