package dev.crifresh.agent.introspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.introspect.v1.DeprecationWarning;
import dev.crifresh.agent.introspect.v1.ServerResponse;
import dev.crifresh.agent.introspect.v1.Timestamp;
import dev.crifresh.agent.testing.FakeIntrospection;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The introspection client against sockets that are not a healthy containerd: nothing listening, a listener that
 * never answers, one that answers bytes that are not HTTP/2, and an HTTP/2 server on a unix socket answering
 * gRPC frames that are not containerd's answer. Every one is an {@link IntrospectionAnswer.Unanswered} naming
 * what went wrong, within the deadline. (Real containerd's answers: the reality suite's IntrospectionRealityTest.)
 * Threat-model side: defended — a broken or foreign listener on the socket path, not an attacker.
 */
class IntrospectionClientTest {
    private static final Duration DEADLINE = Duration.ofMillis(600);

    @TempDir
    Path dir;
    private Vertx vertx;
    private IntrospectionClient client;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        client = new IntrospectionClient(vertx, DEADLINE);
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private IntrospectionAnswer.Unanswered unanswered(Path socket) {
        long t0 = System.nanoTime();
        IntrospectionAnswer answer = client.ask(socket);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(DEADLINE.plusSeconds(1)) < 0, "bounded by the deadline, took " + took);
        return assertInstanceOf(IntrospectionAnswer.Unanswered.class, answer, String.valueOf(answer));
    }

    @Test
    void nothingListeningIsUnanswered() {
        IntrospectionAnswer.Unanswered none = unanswered(dir.resolve("containerd.sock"));
        assertTrue(none.problem().startsWith("failed: "), none.problem());
    }

    @Test
    void aListenerThatNeverAnswersIsUnansweredWithinTheDeadline() throws Exception {
        Path socket = dir.resolve("silent.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            IntrospectionAnswer.Unanswered none = unanswered(socket);
            assertTrue(none.problem().contains("600 ms") || none.problem().toLowerCase().contains("timeout")
                    || none.problem().toLowerCase().contains("timed out"), none.problem());
        }
    }

    @Test
    void aListenerAnsweringGarbageIsUnanswered() throws Exception {
        Path socket = dir.resolve("garbage.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread writer = new Thread(() -> {
                try (SocketChannel peer = server.accept()) {
                    peer.write(ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, this is not HTTP/2\r\n"
                            .repeat(20).getBytes(StandardCharsets.US_ASCII)));
                    Thread.sleep(2000);
                } catch (IOException | InterruptedException ignored) {
                    // the client hung up
                }
            });
            writer.setDaemon(true);
            writer.start();
            unanswered(socket);
        }
    }

    private Path http2(String name, Consumer<HttpServerRequest> answer) throws Exception {
        Path socket = dir.resolve(name);
        FakeIntrospection.serve(vertx, socket, answer);
        return socket;
    }

    @Test
    void aGrpcAnswerThatIsNotTheMessageIsUnanswered() throws Exception {
        byte[] junk = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x42};
        Path socket = http2("junk.sock", FakeIntrospection.grpc(junk, "0"));
        IntrospectionAnswer.Unanswered none = unanswered(socket);
        assertTrue(none.problem().startsWith("failed: "), none.problem());
    }

    @Test
    void aGrpcErrorIsUnansweredNamingIt() throws Exception {
        Path socket = http2("unimplemented.sock", FakeIntrospection.grpc(null, "12"));
        IntrospectionAnswer.Unanswered none = unanswered(socket);
        assertTrue(none.problem().contains("UNIMPLEMENTED"), none.problem());
    }

    @Test
    void aPidNoLinuxHasIsAMalformedAnswer() throws Exception {
        byte[] answer = ServerResponse.newBuilder().setUuid("u").setPid(-5L).build().toByteArray();
        Path socket = http2("pid.sock", FakeIntrospection.grpc(answer, "0"));
        IntrospectionAnswer.Unanswered none = unanswered(socket);
        assertTrue(none.problem().contains("malformed answer: pid 18446744073709551611"), none.problem());
    }

    @Test
    void aWellFormedAnswerIsRead() throws Exception {
        byte[] answer = ServerResponse.newBuilder().setUuid("30cddbda").setPid(4242).setPidns(4026531836L)
                .addDeprecations(DeprecationWarning.newBuilder().setId("io.containerd.deprecation/cri-registry-configs")
                        .setMessage("`configs` is deprecated")
                        .setLastOccurrence(Timestamp.newBuilder().setSeconds(1_796_398_792L).setNanos(867_497_927)))
                .build().toByteArray();
        Path socket = http2("ok.sock", FakeIntrospection.grpc(answer, "0"));
        IntrospectionAnswer.Answered said = assertInstanceOf(IntrospectionAnswer.Answered.class, client.ask(socket));
        assertEquals(4242, said.pid());
        assertEquals(4026531836L, said.pidns());
        assertEquals(1, said.deprecations().size());
        assertEquals(Instant.ofEpochSecond(1_796_398_792L, 867_497_927), said.deprecations().get(0).lastOccurrence());
    }

    @Test
    void aTimeOutsideTimestampsRangeIsAMalformedAnswer() {
        ServerResponse bad = ServerResponse.newBuilder().setUuid("u").setPid(1)
                .addDeprecations(DeprecationWarning.newBuilder().setId("x").setMessage("m")
                        .setLastOccurrence(Timestamp.newBuilder().setSeconds(1).setNanos(-1)))
                .build();
        IntrospectionAnswer.Unanswered none = assertInstanceOf(IntrospectionAnswer.Unanswered.class,
                IntrospectionClient.read(bad));
        assertTrue(none.problem().contains("out of range"), none.problem());
        IntrospectionAnswer.Answered timeless = assertInstanceOf(IntrospectionAnswer.Answered.class,
                IntrospectionClient.read(ServerResponse.newBuilder().setPid(1)
                        .addDeprecations(DeprecationWarning.newBuilder().setId("x")).build()));
        assertEquals(null, timeless.deprecations().get(0).lastOccurrence());
    }
}
