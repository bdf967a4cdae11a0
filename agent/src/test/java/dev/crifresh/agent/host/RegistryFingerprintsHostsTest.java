package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.ContainerdReading.Generation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which generations' way of finding {@code hosts.toml} the agent applies ({@link RegistryFingerprints}'s layouts),
 * on real files: no {@code config_path}, and a redirect in {@code /etc/containerd/certs.d}, which only containerd
 * 2.2 and 2.3 read (and only when {@code registry.mirrors} is empty, which the agent does not read).
 */
class RegistryFingerprintsHostsTest {
    private static final String H = "127.0.0.1:5000";
    private static final byte[] KEY = "registry-fingerprints-hosts-test".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path host;

    /**
     * @param version    the root config's version (Talos pairs 2 with 1.x, 3 with 2.x)
     * @param talos      Talos mode
     * @param generation {@code --containerd-generation}, null for auto
     * @param doubt      whether the agent must doubt; otherwise it publishes the registry's own credential
     */
    record Row(String name, int version, boolean talos, Generation generation, boolean doubt) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                new Row("1.x named: no default directory", 2, false, Generation.ONE, false),
                new Row("Talos, version 2 root: 1.x", 2, true, null, false),
                new Row("2.1 named: no default directory", 3, false, Generation.V2_1, false),
                new Row("2.2 named: the default directory, unless registry.mirrors is set", 3, false,
                        Generation.V2_2, true),
                new Row("2.3 named: the same", 3, false, Generation.V2_3, true),
                new Row("some 2.x: 2.1 and 2.2 differ", 3, false, Generation.TWO, true),
                new Row("Talos, version 3 root: every 2.x", 3, true, null, true),
                new Row("generic, auto: every generation", 3, false, null, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void theDefaultDirectoryIsReadOnlyWhereTheGenerationReadsIt(Row row) throws Exception {
        Path dir = Files.createDirectories(host.resolve("etc/containerd/certs.d/127.0.0.1_5000_"));
        Files.writeString(dir.resolve("hosts.toml"), "server = \"http://alias:5000\"\n[host.\"http://alias:5000\"]\n");
        String plugin = row.version() >= 3 ? "io.containerd.cri.v1.images" : "io.containerd.grpc.v1.cri";
        String config = "version = " + row.version() + "\n[plugins.\"" + plugin + "\".registry.configs.\"" + H
                + "\".auth]\n  username = \"bot\"\n  password = \"current\"\n";
        HostsDirectory hosts = new HostsDirectory(new HostPaths(host));
        RegistryFingerprints.Result r = RegistryFingerprints.of(List.of(new ConfigDocument("/etc/cri/cri.toml",
                config)), KEY, row.talos(), row.generation(), hosts);
        if (row.doubt()) {
            assertEquals(1, r.parseFailures().size(), r.toString());
            assertTrue(r.fingerprints().isEmpty(), r.toString());
        } else {
            assertEquals(List.of(), r.parseFailures());
            assertTrue(r.fingerprints().containsKey(H), r.toString());
            assertTrue(r.problems().isEmpty(), r.toString());
        }
        if (row.generation() == Generation.V2_2 || row.generation() == Generation.V2_3
                || row.generation() == Generation.TWO) {
            // where a generation that may run reads it, it is consulted, so its changes are watched
            assertTrue(hosts.consulted().contains("/etc/containerd/certs.d/127.0.0.1_5000_"),
                    hosts.consulted().toString());
        }
    }
}
