package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.ContainerdConfigFile;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.ContainerdReading.Generation;
import dev.crifresh.common.registry.RegistryHosts;
import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * containerd's config semantics where a credential is concerned (docs/design.md, "containerd's config semantics"),
 * judged by a real pull: each case starts the real containerd of one generation on hand-written files and pulls
 * through its CRI with no credential in the request, so the registry's answer says which credential containerd
 * holds — {@code OK} the current one, {@code 401} another or none. The agent's reading of the same files
 * ({@link ContainerdReading}) must then be that credential, or unknown where it is in doubt; never a credential
 * containerd does not pull with.
 *
 * <p>Threat model: defended side — config shapes an operator's ordinary tools write (drop-ins, imports, old
 * config versions); nothing here needs more than writing files.
 */
class ConfigSemanticsRealityTest {
    private static final String GRPC = "plugins.\"io.containerd.grpc.v1.cri\"";
    private static final String IMAGES = "plugins.\"io.containerd.cri.v1.images\"";

    @TempDir
    static Path shared;
    static RealRegistry registry;
    static String image;
    static Credential current;
    static final Credential OLD = new Credential("deploy-bot", "semantics-old");

    /** One shape: the root config and its imports, written to /etc/cri (the root imports the rest in order). */
    record Shape(String name, String generation, boolean pullOk, List<String> files) {
    }

    @BeforeAll
    static void startRegistry() {
        RealityGate.require();
        current = new Credential("deploy-bot", "semantics-current");
        registry = RealRegistry.start(shared.resolve("registry"), OLD);
        image = registry.push(OciLayout.write(shared.resolve("oci"), "v1", "semantics"), "crifresh/probe", "v1");
        registry.rotate(current);
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    /** The CRI settings a containerd needs in a temporary root, in the 2.x plugins (a version 3 file). */
    private static String base3() {
        return "version = 3\n[" + IMAGES + "]\n  snapshotter = \"native\"\n"
                + "[plugins.\"io.containerd.cri.v1.runtime\".cni]\n  bin_dir = \"/opt/cni/bin\"\n"
                + "  conf_dir = \"/etc/cni/net.d\"\n";
    }

    /** The same settings in the 1.x CRI plugin's table body (to sit in the same table as a registry in 1.x). */
    private static String base2Tables() {
        return "[" + GRPC + ".containerd]\n  snapshotter = \"native\"\n"
                + "[" + GRPC + ".cni]\n  bin_dir = \"/opt/cni/bin\"\n  conf_dir = \"/etc/cni/net.d\"\n";
    }

    private static String userPass(String plugin, Credential c) {
        return "[" + plugin + ".registry.configs.\"" + registry.host() + "\".auth]\n  username = \"" + c.username()
                + "\"\n  password = \"" + c.password() + "\"\n";
    }

    private static String authOnly(String plugin, Credential c) {
        String b64 = Base64.getEncoder().encodeToString((c.username() + ":" + c.password())
                .getBytes(StandardCharsets.UTF_8));
        return "[" + plugin + ".registry.configs.\"" + registry.host() + "\".auth]\n  auth = \"" + b64 + "\"\n";
    }

    private static Stream<Shape> shapes() {
        return Stream.of(
                // the finding: the 2.x model said "no credential" here
                new Shape("2.1: a version 2 root, then a version 2 file with the registry in io.containerd.grpc.v1.cri"
                        + " and no containerd.runtimes — merged version 2, 2.1 moves it into the images plugin", "2.1",
                        true, List.of("version = 2\n", base3(), "version = 2\n" + userPass(GRPC, current))),
                new Shape("2.1: the same registry in the version 2 root, then a version 3 import — merged version 3,"
                        + " nothing is migrated, the credential is lost", "2.1", false,
                        List.of("version = 2\n" + userPass(GRPC, current), base3())),
                new Shape("2.1: a version 3 root importing such a version 2 file", "2.1", true,
                        List.of("version = 3\n", base3(), "version = 2\n" + userPass(GRPC, current))),
                new Shape("2.1: a version 3 file's io.containerd.grpc.v1.cri registry is not migrated", "2.1", false,
                        List.of("version = 3\n", base3(), "version = 3\n" + userPass(GRPC, current))),
                new Shape("2.1: a later import's auth fields merge into an earlier one's; username and password"
                        + " win over auth (current pair, old auth)", "2.1", true,
                        List.of("version = 3\n", base3(), "version = 3\n" + userPass(IMAGES, current),
                                "version = 3\n" + authOnly(IMAGES, OLD))),
                new Shape("2.1: the same merge, old pair and current auth: the pair still wins", "2.1", false,
                        List.of("version = 3\n", base3(), "version = 3\n" + userPass(IMAGES, OLD),
                                "version = 3\n" + authOnly(IMAGES, current))),
                new Shape("2.1: a later import spelling every field overrides the credential", "2.1", true,
                        List.of("version = 3\n", base3(), "version = 3\n" + userPass(IMAGES, OLD),
                                "version = 3\n" + userPass(IMAGES, current))),
                new Shape("1.7: a later version 2 file with the CRI table but no registry replaces it whole", "1.7",
                        false, List.of("version = 2\n", "version = 2\n" + base2Tables() + userPass(GRPC, current),
                                "version = 2\n" + base2Tables())),
                new Shape("1.6: a later version 2 file with the CRI table but no registry replaces it whole", "1.6",
                        false, List.of("version = 2\n", "version = 2\n" + base2Tables() + userPass(GRPC, current),
                                "version = 2\n" + base2Tables())),
                new Shape("1.7: a version 2 file with the registry and no containerd.runtimes is read", "1.7", true,
                        List.of("version = 2\n" + base2Tables() + userPass(GRPC, current))));
    }

    @TestFactory
    Stream<DynamicTest> eachShapeOnTheRealContainerd(@TempDir Path tmp) {
        return shapes().map(s -> DynamicTest.dynamicTest("containerd " + s.generation() + ": " + s.name(),
                () -> judge(s, tmp.resolve("case" + Integer.toHexString(s.name().hashCode())))));
    }

    private static void judge(Shape shape, Path dir) throws IOException {
        ContainerdGeneration generation = ContainerdGeneration.named(shape.generation());
        RealityGate.require(generation);
        CriNode node = new CriNode(dir);
        List<String> texts = withImports(shape.files());
        List<ContainerdReading.Document> docs = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String path = i == 0 ? TalosConfigFiles.CONTAINERD_TOML : "/etc/cri/conf.d/" + i + ".toml";
            node.write(path, texts.get(i), false);
            docs.add(new ContainerdReading.Document(path, assertInstanceOf(ContainerdConfigFile.Parsed.class,
                    ContainerdConfigFile.parse(texts.get(i)), path)));
        }
        TruthTableTest.settle(Instant.now());
        MachineLock.acquire();
        try {
            CriProcesses.awaitNoneForeign(List.of());
            CriClient.Pull pull;
            try (RealContainerd containerd = RealContainerd.start(node, generation)) {
                pull = containerd.cri().pull(image);
            }
            System.out.println("config semantics: containerd " + shape.generation() + ": " + shape.name() + " → pull "
                    + pull.summary());
            if (shape.pullOk()) {
                assertTrue(pull.ok(), shape.name() + ": " + pull.detail());
            } else {
                assertTrue(pull.unauthorized() || pull.noCredential(), shape.name() + ": " + pull.detail());
            }
            // The agent's reading for this generation: the credential containerd pulled with, or unknown.
            ContainerdReading.Result reading = ContainerdReading.read(docs,
                    generation.two() ? Generation.TWO : Generation.ONE);
            if (reading instanceof ContainerdReading.Read read) {
                var held = read.byHost().get(RegistryHosts.normalise(registry.host()));
                boolean readsCurrent = held != null && held.password().equals(current.password())
                        && held.username().equals(current.username());
                assertEquals(shape.pullOk(), readsCurrent, shape.name() + ": the agent reads " + (held == null ? "none"
                        : held.password().equals(current.password()) ? "the current credential" : "another credential"));
            }
        } finally {
            MachineLock.release();
        }
    }

    /** The root (first) text gains {@code imports} naming the others, in order. */
    private static List<String> withImports(List<String> files) {
        List<String> out = new ArrayList<>(files);
        if (files.size() > 1) {
            List<String> names = new ArrayList<>();
            for (int i = 1; i < files.size(); i++) {
                names.add("\"/etc/cri/conf.d/" + i + ".toml\"");
            }
            String root = files.get(0);
            int afterVersion = root.startsWith("version") ? root.indexOf('\n') + 1 : 0;
            out.set(0, root.substring(0, afterVersion) + "imports = [" + String.join(", ", names) + "]\n"
                    + root.substring(afterVersion));
        }
        return out;
    }
}
