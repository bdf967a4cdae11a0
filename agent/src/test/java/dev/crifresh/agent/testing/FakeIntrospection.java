package dev.crifresh.agent.testing;

import dev.crifresh.agent.introspect.v1.DeprecationWarning;
import dev.crifresh.agent.introspect.v1.ServerResponse;
import dev.crifresh.agent.introspect.v1.Timestamp;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A stand-in for containerd's introspection service: a real HTTP/2 (prior knowledge) server on a real unix socket
 * whose every request gets the answer a test chooses, framed as gRPC is (containerd 2.x itself runs in the reality
 * suite; this one can answer what no healthy containerd does).
 */
public final class FakeIntrospection {
    private FakeIntrospection() {
    }

    /** Binds {@code socket} (replacing what is there) and answers every request with {@code answer}. */
    public static HttpServer serve(Vertx vertx, Path socket, Consumer<HttpServerRequest> answer) throws Exception {
        Files.createDirectories(socket.getParent());
        Files.deleteIfExists(socket);
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
                .requestHandler(answer::accept);
        server.listen(SocketAddress.domainSocketAddress(socket.toString()))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return server;
    }

    /** Answers with these bytes as the one gRPC message and {@code grpc-status}. */
    public static Consumer<HttpServerRequest> grpc(byte[] message, String status) {
        return req -> {
            req.response().putHeader("content-type", "application/grpc");
            req.response().putTrailer("grpc-status", status);
            req.response().end(message == null ? Buffer.buffer()
                    : Buffer.buffer().appendByte((byte) 0).appendInt(message.length).appendBytes(message));
        };
    }

    /** containerd's answer: this pid, and {@code cri-registry-configs} last emitted at {@code lastOccurrence} (null: none). */
    public static byte[] answer(long pid, Instant lastOccurrence) {
        ServerResponse.Builder b = ServerResponse.newBuilder().setUuid("30cddbda-6e18-4953-88ad-b689fc4bc1d2")
                .setPid(pid).setPidns(4026531836L);
        if (lastOccurrence != null) {
            b.addDeprecations(DeprecationWarning.newBuilder().setId("io.containerd.deprecation/cri-registry-configs")
                    .setMessage("The `configs` property of `[plugins.\"io.containerd.grpc.v1.cri\".registry]` is deprecated")
                    .setLastOccurrence(Timestamp.newBuilder().setSeconds(lastOccurrence.getEpochSecond())
                            .setNanos(lastOccurrence.getNano())));
        }
        return b.build().toByteArray();
    }
}
