package dev.crifresh.agent.cri;

import dev.crifresh.agent.cri.v1.StatusRequest;
import dev.crifresh.agent.cri.v1.StatusResponse;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * CRI {@code RuntimeService.Status(verbose=true)} over the runtime's unix socket, on Vert.x's gRPC client
 * (HTTP/2 with prior knowledge, as gRPC servers expect). {@link #statusInfo} blocks: call it from a worker
 * thread, never from an event loop.
 */
public final class CriStatusClient implements CriStatusSource {
    private static final ServiceMethod<StatusResponse, StatusRequest> STATUS = ServiceMethod.client(
            ServiceName.create("runtime.v1", "RuntimeService"), "Status",
            GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(StatusResponse.newBuilder()));

    private final GrpcClient client;
    private final SocketAddress address;
    private final Path socket;
    private final Duration timeout;

    public CriStatusClient(Vertx vertx, Path socket, Duration timeout) {
        this.client = GrpcClient.client(vertx, new GrpcClientOptions(), new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)
                .setConnectTimeout((int) timeout.toMillis()));
        this.address = SocketAddress.domainSocketAddress(socket.toString());
        this.socket = socket;
        this.timeout = timeout;
    }

    @Override
    public Map<String, String> statusInfo() throws CriStatusException {
        try {
            return client.request(address, STATUS)
                    .compose(req -> {
                        req.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
                        return req.send(StatusRequest.newBuilder().setVerbose(true).build());
                    })
                    .compose(resp -> resp.last().map(last -> {
                        if (resp.status() != null && resp.status() != GrpcStatus.OK) {
                            throw new IllegalStateException("status " + resp.status());
                        }
                        return last.getInfoMap();
                    }))
                    .toCompletionStage().toCompletableFuture()
                    .get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CriStatusException("CRI Status on " + socket + " failed: "
                    + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()));
        } catch (TimeoutException e) {
            throw new CriStatusException("CRI Status on " + socket + " did not answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CriStatusException("interrupted while asking CRI Status on " + socket);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
