package dev.crifresh.agent.introspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.crifresh.agent.host.ConfigDocument;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.evidence.Introspection;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the introspection check takes from the evaluation's one reading of the files: the {@code registry.configs}
 * hosts, and whether the reading finds a {@code registry.auths} credential (which containerd would record as its
 * cri-registry-auths deprecation). The files are containerd 1.x's version-2 TOML, read as Talos pairs them.
 */
class IntrospectionCheckTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final String CRI = "[plugins.\"io.containerd.grpc.v1.cri\".registry.";

    static Stream<Arguments> readings() {
        return Stream.of(
                Arguments.of("configs only", CRI + "configs.\"ghcr.io\".auth]\nusername = \"bot\"\npassword = \"p\"\n",
                        List.of("ghcr.io"), false),
                Arguments.of("auths only", CRI + "auths.\"https://quay.io\"]\nusername = \"bot\"\npassword = \"p\"\n",
                        List.of(), true),
                Arguments.of("auths beside configs for another host", CRI + "configs.\"ghcr.io\".auth]\nusername = "
                        + "\"bot\"\npassword = \"p\"\n" + CRI + "auths.\"https://quay.io\"]\nusername = \"bot\"\n"
                        + "password = \"q\"\n", List.of("ghcr.io"), true),
                Arguments.of("auths overriding configs", CRI + "configs.\"ghcr.io\".auth]\nusername = \"bot\"\n"
                        + "password = \"p\"\n" + CRI + "auths.\"https://ghcr.io\"]\nusername = \"bot\"\npassword = \"q\"\n",
                        List.of("ghcr.io"), true),
                Arguments.of("a capitalised Auths the reading does not see", CRI + "Auths.\"https://quay.io\"]\n"
                        + "username = \"bot\"\npassword = \"p\"\n", List.of(), false),
                Arguments.of("no registry", "", List.of(), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readings")
    void theEvidenceCarriesTheReadingsHostsAndWhetherItFindsAuths(String name, String registry, List<String> hosts,
            boolean auths) {
        RegistryFingerprints.Result reading = RegistryFingerprints.of(List.of(new ConfigDocument(
                "/etc/cri/conf.d/cri.toml", "version = 2\n" + registry)), KEY, true, null);
        List<Path> asked = new ArrayList<>();
        try (IntrospectionCheck check = new IntrospectionCheck(new Fixed(asked), Path.of("/host"))) {
            Introspection evidence = check.inspect(observation(1), reading).introspection();
            assertEquals(hosts, evidence.credentialHosts());
            assertEquals(auths, evidence.readsAuths());
            assertEquals(List.of(Path.of("/host/run/containerd/containerd.sock")), asked);
            assertNull(check.inspect(observation(2), reading).introspection(), "no single containerd to ask");
        }
    }

    private static Observation observation(int containerds) {
        List<ProcessSample> candidates = new ArrayList<>();
        for (int i = 0; i < containerds; i++) {
            candidates.add(new ProcessSample(100 + i, 500, List.of("/bin/containerd")));
        }
        return new Observation("boot", null, null, 100, candidates, List.of(), List.of(), List.of(), Instant.EPOCH,
                List.of(), ContainerdSocket.found("/run/containerd/containerd.sock", Instant.EPOCH, Instant.EPOCH), null, null);
    }

    private record Fixed(List<Path> asked) implements IntrospectionSource {
        @Override
        public IntrospectionAnswer ask(Path socket) {
            asked.add(socket);
            return new IntrospectionAnswer.Unanswered("a test's stand-in");
        }

        @Override
        public void close() {
        }
    }
}
