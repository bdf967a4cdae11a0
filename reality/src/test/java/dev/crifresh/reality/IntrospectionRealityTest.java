package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.IntrospectionRules;
import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * Rule 1b and the no-silent-fallback rule on every real containerd 2.x here — sid's 2.1.9 and containerd's own
 * 2.2.7 and 2.3.4 (fetched by {@code reality/bin/fetch-containerd}), each test named by its generation — with
 * Talos 1.9+'s layout: {@code containerd.toml} version 3 importing {@code conf.d/cri.toml}, whose
 * {@code io.containerd.cri.v1.images} carries {@code registry.configs} auth — the shape that makes containerd
 * record {@code io.containerd.deprecation/cri-registry-configs}. Which shapes record it, per generation, is pinned
 * against the generation's own {@code config dump}: exactly those where the images plugin ends up with
 * {@code registry.configs}. The agent runs in-process ({@code observe}) on the real /proc and the node's files.
 *
 * <p>Threat-model side: the rewrites and the second containerd are ordinary operations (defended); the socket
 * replaced by a dead or garbage-speaking listener stands for a broken runtime (defended: never fresh). A process
 * answering as containerd with a forged pid needs root on the node (outside the model) and is not tried.
 */
@SuppressWarnings("checkstyle:filelength") // the introspection check on each real containerd, with the fixtures that start them
class IntrospectionRealityTest {
    private static final String REGISTRY = "registry.example:5000";
    private static final List<String> WATCH = CriNode.watchGlobs();

    @TempDir
    Path tmp;
    private Path key;

    @BeforeEach
    void key() throws IOException {
        key = tmp.resolve("fingerprint.key");
        Files.write(key, "reality-suite-fingerprint-key-32-bytes!".getBytes(StandardCharsets.US_ASCII));
    }

    /** Every containerd 2.x generation the suites run. */
    static Stream<ContainerdGeneration> twoX() {
        return ContainerdGeneration.all().stream().filter(ContainerdGeneration::two);
    }

    private static ContainerdGeneration fetched(String name) {
        RealityGate.require();
        ContainerdGeneration generation = ContainerdGeneration.named(name);
        RealityGate.require(generation);
        return generation;
    }

    /** Talos 1.9–1.13's files for containerd 2.x: the root config and the merged CRI config (version 3). */
    private static CriNode talos2x(Path root, String password) {
        CriNode node = new CriNode(root);
        node.write("/etc/cri/containerd.toml", """
                version = 3
                imports = ["/etc/cri/conf.d/cri.toml"]
                """, false);
        writeCri(node, password);
        TruthTableTest.settle(Instant.now()); // Talos renders the files seconds before the cri service starts
        return node;
    }

    /** {@code cri.toml} in place, as Talos writes it; {@code password} null: no registry credential at all. */
    private static void writeCri(CriNode node, String password) {
        String auth = password == null ? "" : """
                [plugins."io.containerd.cri.v1.images".registry.configs."%s".auth]
                  username = "deploy-bot"
                  password = "%s"
                """.formatted(REGISTRY, password);
        node.write("/etc/cri/conf.d/cri.toml", """
                version = 3
                [plugins."io.containerd.cri.v1.images"]
                  snapshotter = "native"
                  discard_unpacked_layers = true
                [plugins."io.containerd.cri.v1.images".registry]
                  config_path = "/etc/cri/conf.d/hosts"
                """ + auth, false);
    }

    private JsonNode observe(CriNode node, String... extra) {
        return AgentView.observeJson(node, key, WATCH, extra);
    }

    private JsonNode introspected(CriNode node) {
        return observe(node, "--containerd-introspection");
    }

    private static String summary(JsonNode view) {
        return AgentView.of(view).summary() + ": " + view.get("message").stringValue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoX")
    void theAnswerOfARealContainerd2xIsWhatTheSourceSaysAndDecidesByEachRule(ContainerdGeneration c2x) throws Exception {
        ContainerdGeneration c21 = fetched(c2x.name());
        CriNode node = talos2x(tmp.resolve("node"), "token-v1");
        try (RealContainerd containerd = RealContainerd.start(node, c21)) {
            // Fresh: the answer agrees, the other rules prove it (ordering).
            JsonNode fresh = introspected(node);
            assertEquals("fresh", fresh.get("verdict").stringValue(), summary(fresh));
            JsonNode answer = fresh.get("containerd").get("introspection");
            assertEquals(containerd.pid(), answer.get("pid").longValue(), "the pid is the process /proc shows");
            JsonNode deprecation = deprecation(answer);
            assertNotNull(deprecation, c21 + " records " + IntrospectionRules.REGISTRY_CONFIGS + ": " + answer);
            Instant last = Instant.parse(deprecation.get("lastOccurrence").stringValue());
            Instant started = Instant.parse(fresh.get("containerd").get("startedAt").stringValue());
            Instant bound = Instant.parse(fresh.get("containerd").get("socket").get("mtime").stringValue());
            // last_occurrence is stamped at the images plugin's init: after the process started (its /proc start is
            // truncated to the tick, so up to 10 ms earlier) and before the socket was bound.
            assertFalse(last.isBefore(started.minusMillis(10)), "last occurrence " + last + " before start " + started);
            assertFalse(last.isAfter(bound), "last occurrence " + last + " after the socket's bind " + bound);
            assertEquals(List.of(REGISTRY), List.of(answer.get("configCredentialHosts").get(0).stringValue()));
            System.out.println(c21 + " pid " + containerd.pid() + " (uuid "
                    + answer.get("uuid").stringValue() + ", pidns " + answer.get("pidns").longValue() + "): /proc start "
                    + started + ", " + IntrospectionRules.REGISTRY_CONFIGS + " last occurrence " + last + " ("
                    + Duration.between(started, last).toMillis() + " ms after), socket mtime " + bound + " ("
                    + Duration.between(last, bound).toMillis() + " ms after that)");

            // Stale: the credential rotated in place after containerd loaded its registry config.
            writeCri(node, "token-v2");
            JsonNode rotated = introspected(node);
            assertEquals("ConfigChangedAfterRuntimeLoad", rotated.get("reason").stringValue(), summary(rotated));
            assertEquals("stale", rotated.get("verdict").stringValue());

            // Unknown: the socket path answers garbage (a listener that speaks no HTTP/2), then nothing at all.
            Path socket = node.socket();
            try (ServerSocketChannel garbage = listen(socket)) {
                Thread talker = talk(garbage);
                JsonNode garbled = introspected(node);
                assertEquals("IntrospectionUnavailable", garbled.get("reason").stringValue(), summary(garbled));
                assertEquals("unknown", garbled.get("verdict").stringValue());
                assertTrue(garbled.get("message").stringValue().contains("/run/containerd/containerd.sock"),
                        summary(garbled));
                talker.interrupt();
            }
            listen(socket).close(); // a socket inode nobody listens on: connection refused
            JsonNode dead = introspected(node);
            assertEquals("IntrospectionUnavailable", dead.get("reason").stringValue(), summary(dead));
            System.out.println("dead socket: " + summary(dead));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoX")
    void aContainerdThatLoadedNoCredentialOrIsNotTheOneOnTheSocketIsNeverFresh(ContainerdGeneration c2x) throws Exception {
        ContainerdGeneration c21 = fetched(c2x.name());
        CriNode node = talos2x(tmp.resolve("node"), null);
        try (RealContainerd containerd = RealContainerd.start(node, c21)) {
            JsonNode none = introspected(node);
            assertEquals("fresh", none.get("verdict").stringValue(), "no credential, no deprecation: " + summary(none));
            assertTrue(deprecation(none.get("containerd").get("introspection")) == null, none.toString());

            // The credential arrives while containerd runs: it reports no cri-registry-configs, so it loaded none.
            writeCri(node, "token-v1");
            JsonNode loadedNone = introspected(node);
            assertEquals("RuntimeLoadedNoRegistryConfig", loadedNone.get("reason").stringValue(), summary(loadedNone));
            assertEquals("stale", loadedNone.get("verdict").stringValue());

            // A second containerd (its own root, state and config; not Talos' command line) binds the CRI socket
            // path: kubelet would talk to it. The agent timed the first one; the answer's pid is the second's.
            Process second = startSecond(node, c21);
            try {
                JsonNode other = introspected(node);
                assertEquals("IntrospectionOtherProcess", other.get("reason").stringValue(), summary(other));
                assertEquals("unknown", other.get("verdict").stringValue());
                assertEquals(containerd.pid(), other.get("containerd").get("pid").longValue());
                assertTrue(other.get("containerd").get("introspection").get("pid").longValue() != containerd.pid(),
                        other.toString());
                System.out.println("second containerd on the socket: " + summary(other));
            } finally {
                second.destroy();
                if (!second.waitFor(20, TimeUnit.SECONDS)) {
                    second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twoX")
    @SuppressWarnings("try") // containerd only has to run while the try block observes it
    void runtimeStatusRequestedOnContainerd2xFallsBackAndSaysSo(ContainerdGeneration c2x) throws Exception {
        ContainerdGeneration c21 = fetched(c2x.name());
        CriNode node = talos2x(tmp.resolve("node"), "token-v1");
        try (RealContainerd containerd = RealContainerd.start(node, c21)) {
            JsonNode view = observe(node, "--cri-socket", node.socket().toString());
            assertEquals("fresh", view.get("verdict").stringValue(), summary(view));
            JsonNode fallback = view.get("proofFallback");
            assertNotNull(fallback, c21 + "'s CRI status has no registry section: " + view);
            assertEquals("runtime-status", fallback.get("requested").stringValue());
            assertEquals("ordering", fallback.get("used").stringValue());
            assertEquals(view.get("proof").stringValue(), fallback.get("used").stringValue());
            assertTrue(view.get("message").stringValue().contains("the requested runtime-status proof does not apply"),
                    summary(view));
            System.out.println("--cri-socket on " + c21 + ": " + summary(view));
        }
    }

    /**
     * A shape of {@code cri.toml} (under the version 3 root) and, per generation, whether the images plugin ends up
     * with {@code registry.configs} — so whether containerd records {@code cri-registry-configs}.
     */
    record Shape(String name, int rootVersion, String criToml, Set<String> recordedOn,
            Set<String> loadedBy) {
        Shape(String name, String criToml, Set<String> recordedOn) {
            this(name, 3, criToml, recordedOn, Set.of("2.1", "2.2", "2.3"));
        }

        String containerdToml(String criToml) {
            return "version = " + rootVersion + "\nimports = [\"" + criToml + "\"]\n";
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final String AUTH = """
            [plugins."%s".registry.configs."%s".auth]
              username = "deploy-bot"
              password = "token-v1"
            """;

    static Stream<Arguments> shapes() {
        List<Shape> shapes = List.of(
                new Shape("version 3, registry.configs in io.containerd.cri.v1.images (Talos' layout)", """
                        version = 3
                        [plugins."io.containerd.cri.v1.images"]
                          snapshotter = "native"
                        [plugins."io.containerd.cri.v1.images".registry]
                          config_path = "/etc/cri/conf.d/hosts"
                        """ + AUTH.formatted("io.containerd.cri.v1.images", REGISTRY), Set.of("2.1", "2.2", "2.3")),
                new Shape("version 2, registry.configs in io.containerd.grpc.v1.cri (migrated)", """
                        version = 2
                        [plugins."io.containerd.grpc.v1.cri".containerd]
                          snapshotter = "native"
                        """ + AUTH.formatted("io.containerd.grpc.v1.cri", REGISTRY), Set.of("2.1", "2.2", "2.3")),
                new Shape("version 3, registry.configs in io.containerd.grpc.v1.cri (2.3 migrates it from 3 to 4)", """
                        version = 3
                        [plugins."io.containerd.cri.v1.images"]
                          snapshotter = "native"
                        """ + AUTH.formatted("io.containerd.grpc.v1.cri", REGISTRY), Set.of("2.3")),
                new Shape("version 4 root and file, registry.configs in io.containerd.cri.v1.images (Talos 1.15)", 4, """
                        version = 4
                        [plugins."io.containerd.cri.v1.images"]
                          snapshotter = "native"
                        [plugins."io.containerd.cri.v1.images".registry]
                          config_path = "/etc/cri/conf.d/hosts"
                        """ + AUTH.formatted("io.containerd.cri.v1.images", REGISTRY), Set.of("2.3"),
                        Set.of("2.3")),
                new Shape("version 3, registry.config_path only", """
                        version = 3
                        [plugins."io.containerd.cri.v1.images"]
                          snapshotter = "native"
                        [plugins."io.containerd.cri.v1.images".registry]
                          config_path = "/etc/cri/conf.d/hosts"
                        """, Set.of()));
        return twoX().flatMap(g -> shapes.stream().filter(s -> s.loadedBy().contains(g.name())).map(s -> Arguments.of(g, s)));
    }

    /**
     * containerd 2.x records {@code cri-registry-configs} exactly when its images plugin ends up with
     * {@code registry.configs} (its own {@code config dump} says whether it does), with {@code last_occurrence}
     * at its start: after the process started, before its socket was bound. Rule 1b rests on both.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("shapes")
    void theRegistryConfigsDeprecationIsRecordedAtStartExactlyWhenTheImagesPluginHasConfigs(ContainerdGeneration c2x,
            Shape shape) throws Exception {
        ContainerdGeneration generation = fetched(c2x.name());
        CriNode node = new CriNode(tmp.resolve("node"));
        node.write("/etc/cri/containerd.toml", shape.containerdToml("/etc/cri/conf.d/cri.toml"), false);
        node.write("/etc/cri/conf.d/cri.toml", shape.criToml(), false);
        TruthTableTest.settle(Instant.now());
        boolean dumped = imagesPluginHasConfigs(generation, shape);
        assertEquals(shape.recordedOn().contains(generation.name()), dumped,
                generation + "'s config dump: does the images plugin end up with registry.configs?");
        try (RealContainerd containerd = RealContainerd.start(node, generation)) {
            JsonNode view = introspected(node);
            JsonNode answer = view.get("containerd").get("introspection");
            assertEquals(containerd.pid(), answer.get("pid").longValue(), summary(view));
            JsonNode deprecation = deprecation(answer);
            assertEquals(dumped, deprecation != null, generation + ", " + shape + ": " + answer);
            if (deprecation != null) {
                Instant last = Instant.parse(deprecation.get("lastOccurrence").stringValue());
                Instant started = Instant.parse(view.get("containerd").get("startedAt").stringValue());
                Instant bound = Instant.parse(view.get("containerd").get("socket").get("mtime").stringValue());
                assertFalse(last.isBefore(started.minusMillis(10)), "last occurrence " + last + " before start " + started);
                assertFalse(last.isAfter(bound), "last occurrence " + last + " after the socket's bind " + bound);
                System.out.println(generation + ", " + shape + ": " + IntrospectionRules.REGISTRY_CONFIGS + " "
                        + Duration.between(started, last).toMillis() + " ms after the start, "
                        + Duration.between(last, bound).toMillis() + " ms before the socket's bind");
            }
        }
    }

    /** {@code containerd --config X config dump} of the shape (outside the node's root: absolute paths of its own). */
    private boolean imagesPluginHasConfigs(ContainerdGeneration generation, Shape shape) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("dump"));
        Files.writeString(dir.resolve("cri.toml"), shape.criToml());
        Files.writeString(dir.resolve("containerd.toml"), shape.containerdToml(dir.resolve("cri.toml").toString()));
        String dump = Commands.check(List.of(generation.binDir().resolve("containerd").toString(), "--config",
                dir.resolve("containerd.toml").toString(), "config", "dump"));
        return dump.contains("[plugins.'io.containerd.cri.v1.images'.registry.configs.");
    }

    @Test
    void containerd17OnATalos18LayoutAnswersItsPidAndRecordsTheDeprecationToo() throws Exception {
        ContainerdGeneration c17 = fetched("1.7");
        CriNode node = new CriNode(tmp.resolve("node"));
        node.render("registry.invalid", new Credential("deploy-bot", "token-v1"));
        TruthTableTest.settle(Instant.now());
        try (RealContainerd containerd = RealContainerd.start(node, c17)) {
            JsonNode view = introspected(node);
            assertEquals("fresh", view.get("verdict").stringValue(), summary(view));
            JsonNode answer = view.get("containerd").get("introspection");
            assertEquals(containerd.pid(), answer.get("pid").longValue());
            assertNotNull(deprecation(answer), "containerd 1.7 records " + IntrospectionRules.REGISTRY_CONFIGS + ": " + answer);

            node.write("/etc/cri/conf.d/cri.toml", node.criToml("registry.invalid",
                    new Credential("deploy-bot", "token-v2")), false);
            JsonNode rotated = introspected(node);
            assertEquals("ConfigChangedAfterRuntimeLoad", rotated.get("reason").stringValue(), summary(rotated));
            System.out.println(c17 + " pid " + containerd.pid() + ": "
                    + IntrospectionRules.REGISTRY_CONFIGS + " at " + deprecation(answer).get("lastOccurrence").stringValue()
                    + "; after a rotation: " + summary(rotated));
        }
    }

    @Test
    @SuppressWarnings("try") // containerd only has to run while the try block observes it
    void onContainerd16RuntimeStatusAppliesAndIntrospectionCannotTieTheAnswerToAProcess() throws Exception {
        RealityGate.require();
        CriNode node = new CriNode(tmp.resolve("node"));
        node.render("registry.invalid", new Credential("deploy-bot", "token-v1"));
        TruthTableTest.settle(Instant.now());
        try (RealContainerd containerd = RealContainerd.start(node)) {
            JsonNode view = observe(node, "--cri-socket", node.socket().toString());
            assertEquals("runtime-status", view.get("proof").stringValue(), summary(view));
            assertTrue(view.get("proofFallback") == null, view.toString());

            JsonNode introspected = introspected(node);
            assertEquals("IntrospectionUnavailable", introspected.get("reason").stringValue(), summary(introspected));
            assertTrue(introspected.get("message").stringValue().contains("no pid"), summary(introspected));
            System.out.println("containerd 1.6 with --containerd-introspection: " + summary(introspected));
        }
    }

    private static JsonNode deprecation(JsonNode introspection) {
        for (JsonNode d : introspection.get("deprecations")) {
            if (IntrospectionRules.REGISTRY_CONFIGS.equals(d.get("id").stringValue())) {
                return d;
            }
        }
        return null;
    }

    /** Replaces whatever is at {@code socket} with a new listening socket inode. */
    private static ServerSocketChannel listen(Path socket) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return server;
    }

    /** Answers every connection with bytes that are not HTTP/2. */
    private static Thread talk(ServerSocketChannel server) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try (SocketChannel peer = server.accept()) {
                    peer.write(ByteBuffer.wrap("not a gRPC server\r\n".repeat(50).getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * containerd 2.1 with a command line of its own (its own config, root and state under the node's tmp) on the
     * node's CRI socket path, in a private mount namespace; returns once it answers there.
     */
    private Process startSecond(CriNode node, ContainerdGeneration c21) throws Exception {
        Path dir = tmp.resolve("second");
        Files.createDirectories(dir);
        Path config = dir.resolve("config.toml");
        Files.writeString(config, """
                version = 3
                disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.cri.v1.images", "io.containerd.cri.v1.runtime"]
                """);
        Instant before = Files.getLastModifiedTime(node.socket()).toInstant();
        Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private",
                c21.binDir().resolve("containerd").toString(), "--address", node.socket().toString(),
                "--config", config.toString(), "--root", dir.resolve("root").toString(),
                "--state", dir.resolve("state").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("containerd.log").toFile()).start();
        Waits.until(Duration.ofSeconds(30), "the second containerd's socket", () -> {
            if (!p.isAlive()) {
                throw new IllegalStateException("the second containerd exited " + p.exitValue() + ": "
                        + RealContainerd.tail(dir.resolve("containerd.log")));
            }
            try {
                if (!Files.getLastModifiedTime(node.socket()).toInstant().isAfter(before)) {
                    return null;
                }
            } catch (IOException e) {
                return null;
            }
            // bound is not yet serving: wait until it accepts a connection
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(node.socket()))) {
                return probe.isConnected() ? Boolean.TRUE : null;
            } catch (IOException e) {
                return null;
            }
        });
        return p;
    }
}
