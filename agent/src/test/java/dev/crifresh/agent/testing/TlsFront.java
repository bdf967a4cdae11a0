package dev.crifresh.agent.testing;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An HTTPS front for the plain-HTTP mock API server, as the API server's service address is in a pod:
 * TLS with a certificate for {@code localhost} signed by itself (its PEM is the "cluster CA"), every
 * connection piped as raw bytes to the mock (so HTTP and WebSocket watches pass unchanged). The
 * certificate outlives restarts of the mock behind it, and {@link #dropConnections()} cuts every open
 * connection, as a load balancer or an API server restart does.
 */
public final class TlsFront implements AutoCloseable {
    private final SelfSignedCertificate certificate = SelfSignedCertificate.create("localhost");
    private final NetServer server;
    private final NetClient client;
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();

    public TlsFront(Vertx vertx, int backendPort) throws Exception {
        client = vertx.createNetClient();
        server = vertx.createNetServer(new NetServerOptions().setSsl(true).setKeyCertOptions(certificate.keyCertOptions()))
                .connectHandler(in -> {
                    in.pause();
                    open.add(in);
                    in.closeHandler(v -> open.remove(in));
                    client.connect(backendPort, "localhost").onSuccess(out -> {
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
                });
        server.listen(0, "localhost").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    public int port() {
        return server.actualPort();
    }

    /** The PEM of the front's certificate: what a pod finds in its service account's {@code ca.crt}. */
    public Path caPem() {
        return Path.of(certificate.certificatePath());
    }

    /** Closes every open connection (both sides); new connections are accepted as before. */
    public void dropConnections() {
        open.forEach(NetSocket::close);
    }

    @Override
    public void close() throws ExecutionException, TimeoutException {
        try {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the TLS front closed", e);
        }
        client.close();
        certificate.delete();
    }
}
