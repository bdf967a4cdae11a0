package dev.crifresh.agent.introspect;

import dev.crifresh.agent.introspect.v1.DeprecationWarning;
import dev.crifresh.agent.introspect.v1.Empty;
import dev.crifresh.agent.introspect.v1.ServerResponse;
import dev.crifresh.common.evidence.IntrospectionAnswer;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * containerd's {@code Introspection/Server} over its unix socket, on Vert.x's gRPC client (HTTP/2 with prior
 * knowledge). {@link #ask} blocks for at most the deadline (plus half a second for the client to give up): call
 * it from a worker thread, never from an event loop. Whatever goes wrong — nothing listening, no answer in time,
 * bytes that are not HTTP/2 or not the message, a gRPC error, values no containerd sends — is an
 * {@link IntrospectionAnswer.Unanswered} naming it.
 */
public final class IntrospectionClient implements IntrospectionSource {
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(2);

    private static final ServiceMethod<ServerResponse, Empty> SERVER = ServiceMethod.client(
            ServiceName.create("containerd.services.introspection.v1", "Introspection"), "Server",
            GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(ServerResponse.newBuilder()));

    private final GrpcClient client;
    private final Duration deadline;

    public IntrospectionClient(Vertx vertx, Duration deadline) {
        this.client = GrpcClient.client(vertx, new GrpcClientOptions(), new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)
                .setConnectTimeout((int) deadline.toMillis()).setIdleTimeout((int) deadline.toSeconds() + 1)
                .setIdleTimeoutUnit(TimeUnit.SECONDS));
        this.deadline = deadline;
    }

    @Override
    public IntrospectionAnswer ask(Path socket) {
        ServerResponse response;
        try {
            response = client.request(SocketAddress.domainSocketAddress(socket.toString()), SERVER)
                    .compose(req -> {
                        req.timeout(deadline.toMillis(), TimeUnit.MILLISECONDS);
                        return req.send(Empty.getDefaultInstance());
                    })
                    .compose(resp -> resp.last().map(last -> {
                        if (resp.status() != null && resp.status() != GrpcStatus.OK) {
                            throw new IllegalStateException("gRPC status " + resp.status());
                        }
                        return last;
                    }))
                    .toCompletionStage().toCompletableFuture()
                    .get(deadline.toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new IntrospectionAnswer.Unanswered("failed: " + (cause.getMessage() == null
                    ? cause.getClass().getSimpleName() : cause.getClass().getSimpleName() + ": " + cause.getMessage()));
        } catch (TimeoutException e) {
            return new IntrospectionAnswer.Unanswered("no answer within " + deadline.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new IntrospectionAnswer.Unanswered("interrupted while waiting for its answer");
        } catch (RuntimeException e) {
            return new IntrospectionAnswer.Unanswered("failed: " + e);
        }
        return read(response);
    }

    /** The answer as the rules take it, or why it cannot be what containerd sends. */
    static IntrospectionAnswer read(ServerResponse response) {
        if (response == null) {
            return new IntrospectionAnswer.Unanswered("an empty answer");
        }
        if (response.getPid() < 0 || response.getPid() > Integer.MAX_VALUE) {
            return new IntrospectionAnswer.Unanswered("a malformed answer: pid " + Long.toUnsignedString(response.getPid())
                    + " is no Linux pid");
        }
        List<IntrospectionAnswer.Deprecation> deprecations = new ArrayList<>();
        for (DeprecationWarning w : response.getDeprecationsList()) {
            Instant last = null;
            if (w.hasLastOccurrence()) {
                long seconds = w.getLastOccurrence().getSeconds();
                int nanos = w.getLastOccurrence().getNanos();
                // google.protobuf.Timestamp's own range: 0001-01-01 to 9999-12-31, nanos in [0, 1e9).
                if (seconds < -62_135_596_800L || seconds > 253_402_300_799L || nanos < 0 || nanos > 999_999_999) {
                    return new IntrospectionAnswer.Unanswered("a malformed answer: last_occurrence of "
                            + w.getId() + " is out of range");
                }
                last = Instant.ofEpochSecond(seconds, nanos);
            }
            deprecations.add(new IntrospectionAnswer.Deprecation(w.getId(), w.getMessage(), last));
        }
        return new IntrospectionAnswer.Answered(response.getUuid(), response.getPid(), response.getPidns(), deprecations);
    }

    @Override
    public void close() {
        client.close();
    }
}
