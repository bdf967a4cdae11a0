package dev.crifresh.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Builds Dockerfile.agent and Dockerfile.coordinator with buildah (no Docker engine, no registry: the
 * bases are {@link StandIns}) and checks what came out against what the Dockerfiles and the chart
 * rely on: the config (user, entrypoint, labels, port), and that the only files the images add to their
 * base are the jar, the empty trust store and talosctl — no build tools, shells or caches.
 */
class ImageBuildTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static BuiltImages images;
    // vfs makes every working container a full copy of the image: mount each image once
    private static ImageFiles base;
    private static ImageFiles agent;
    private static ImageFiles coordinator;
    private static Map<String, ImageFiles.Entry> baseTree;
    private static String javaHome;

    @BeforeAll
    static void build() throws Exception {
        images = BuiltImages.get();
        base = ImageFiles.mount(images.buildah, StandIns.JRE);
        agent = ImageFiles.mount(images.buildah, BuiltImages.AGENT);
        coordinator = ImageFiles.mount(images.buildah, BuiltImages.COORDINATOR);
        baseTree = base.tree();
        String target = Files.readSymbolicLink(base.root.resolve("opt/java/openjdk")).toString();
        javaHome = target.startsWith("/") ? target.substring(1) : target;
    }

    @AfterAll
    static void unmount() {
        for (ImageFiles files : new ImageFiles[] {base, agent, coordinator}) {
            if (files != null) {
                files.close();
            }
        }
    }

    @Test
    void theAgentImagesConfigIsTheDockerfiles() throws Exception {
        JsonNode config = config(BuiltImages.AGENT);
        assertEquals("65532:65532", config.path("User").asString(), "non-root unless the pod says otherwise");
        assertEquals(entrypoint("agent"), strings(config.path("Entrypoint")));
        assertEquals(List.of("--help"), strings(config.path("Cmd")));
        assertEquals(List.of("9402/tcp"), fieldNames(config.path("ExposedPorts")));
        List<String> env = strings(config.path("Env"));
        assertTrue(env.contains("MALLOC_ARENA_MAX=2"), env.toString());
        assertTrue(env.stream().anyMatch(e -> e.startsWith("PATH=/opt/java/openjdk/bin:")), "java from the base's PATH: " + env);
        labels(config, "crifresh-agent");
    }

    @Test
    void theCoordinatorImagesConfigIsTheDockerfiles() throws Exception {
        JsonNode config = config(BuiltImages.COORDINATOR);
        assertEquals("65532:65532", config.path("User").asString());
        assertEquals(entrypoint("coordinator"), strings(config.path("Entrypoint")));
        assertEquals(List.of("--help"), strings(config.path("Cmd")));
        assertTrue(config.path("ExposedPorts").isMissingNode() || config.path("ExposedPorts").isEmpty()
                || config.path("ExposedPorts").isNull(), "the coordinator serves nothing");
        List<String> env = strings(config.path("Env"));
        assertTrue(env.contains("MALLOC_ARENA_MAX=2") && env.contains("HOME=/tmp"), env.toString());
        labels(config, "crifresh-coordinator");
    }

    /** The runtime stage adds the jar and the empty trust store to the JRE base, and nothing else. */
    @Test
    void theAgentImageAddsOnlyItsJarAndTheEmptyTrustStore() throws Exception {
        Map<String, String> diff = diffAgainstBase(agent);
        String cacerts = javaHome + "/lib/security/cacerts";
        assertEquals(List.of("opt/crifresh", "opt/crifresh/crifresh-agent.jar", cacerts), List.copyOf(diff.keySet()),
                diff.toString());
        {
            ImageFiles files = agent;
            assertSameBytes(BuiltImages.REPO.resolve("agent/target/crifresh-agent.jar"),
                    files.root.resolve("opt/crifresh/crifresh-agent.jar"));
            // what the JVM reads through JAVA_HOME=/opt/java/openjdk is the replaced file
            Path store = files.root.resolve(cacerts);
            assertTrue(Files.isRegularFile(store, LinkOption.NOFOLLOW_LINKS));
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                trust.load(in, "changeit".toCharArray());
            }
            assertEquals(0, trust.size(), "the agent's trust store is empty: it trusts only the cluster's CA");
        }
    }

    @Test
    void theCoordinatorImageAddsOnlyItsJarAndTalosctl() throws Exception {
        Map<String, String> diff = diffAgainstBase(coordinator);
        assertEquals(List.of("opt/crifresh", "opt/crifresh/crifresh-coordinator.jar", "usr/local/bin/talosctl"),
                List.copyOf(diff.keySet()), diff.toString());
        {
            ImageFiles files = coordinator;
            assertSameBytes(BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"),
                    files.root.resolve("opt/crifresh/crifresh-coordinator.jar"));
            assertTrue(Files.isExecutable(files.root.resolve("usr/local/bin/talosctl")));
        }
    }

    /** The runtime is the base's JRE: no compiler, no Maven, no build stage leftovers. */
    @Test
    void noBuildToolsInTheImages() throws Exception {
        for (ImageFiles files : List.of(agent, coordinator)) {
            String image = files == agent ? BuiltImages.AGENT : BuiltImages.COORDINATOR;
            {
                for (String absent : List.of(javaHome + "/bin/javac", "usr/bin/javac", "usr/bin/mvn", "root/.m2",
                        "src", "out", "tmp/empty-cacerts")) {
                    assertFalse(Files.exists(files.root.resolve(absent), LinkOption.NOFOLLOW_LINKS), image + ": /" + absent);
                }
            }
        }
    }

    /** Sizes: what each image adds to its base, uncompressed; printed for docs/install.md. */
    @Test
    void theImagesAddOnlyTheirJarsSize() throws Exception {
        long agentJar = Files.size(BuiltImages.REPO.resolve("agent/target/crifresh-agent.jar"));
        long coordinatorJar = Files.size(BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"));
        long baseBytes = bytes(baseTree);
        long agentBytes = bytes(agent.tree());
        long coordinatorBytes = bytes(coordinator.tree());
        System.out.printf("images: base %.1f MiB, agent +%.1f MiB (jar %.1f MiB), coordinator +%.1f MiB (jar %.1f MiB)%n",
                baseBytes / 1048576.0, (agentBytes - baseBytes) / 1048576.0, agentJar / 1048576.0,
                (coordinatorBytes - baseBytes) / 1048576.0, coordinatorJar / 1048576.0);
        // the agent replaces a full cacerts (~150 KiB) by an empty one (< 4 KiB): it adds at most its jar
        assertTrue(agentBytes - baseBytes <= agentJar, "agent adds " + (agentBytes - baseBytes) + " bytes, its jar is " + agentJar);
        assertTrue(coordinatorBytes - baseBytes <= coordinatorJar + 4096, "coordinator adds " + (coordinatorBytes - baseBytes));
    }

    // --- helpers ---

    private static Map<String, String> diffAgainstBase(ImageFiles built) {
        return ImageFiles.diff(baseTree, built.tree(), path -> sameBytes(base.root.resolve(path), built.root.resolve(path)));
    }

    private static boolean sameBytes(Path a, Path b) {
        try {
            if (!Files.isRegularFile(a, LinkOption.NOFOLLOW_LINKS)) {
                return true;
            }
            return Files.mismatch(a, b) == -1;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static void assertSameBytes(Path expected, Path actual) throws Exception {
        assertEquals(-1, Files.mismatch(expected, actual), actual + " differs from " + expected);
    }

    private static long bytes(Map<String, ImageFiles.Entry> tree) {
        return tree.values().stream().mapToLong(ImageFiles.Entry::size).sum();
    }

    private static void labels(JsonNode config, String title) {
        JsonNode labels = config.path("Labels");
        assertEquals(title, labels.path("org.opencontainers.image.title").asString());
        assertEquals(BuiltImages.VERSION, labels.path("org.opencontainers.image.version").asString());
        assertEquals(BuiltImages.REVISION, labels.path("org.opencontainers.image.revision").asString());
        assertEquals(StandIns.JRE, labels.path("org.opencontainers.image.base.name").asString(),
                "base.name names the base actually used");
        assertFalse(labels.path("org.opencontainers.image.description").asString().isBlank());
    }

    static JsonNode config(String image) {
        String json = images.buildah.run("inspect", "--type", "image", image).stdout();
        return JSON.readTree(json).path("OCIv1").path("config");
    }

    /** The ENTRYPOINT of Dockerfile.<module> (exec form). */
    static List<String> entrypoint(String module) throws Exception {
        String entry = Files.readAllLines(BuiltImages.REPO.resolve("Dockerfile." + module)).stream()
                .filter(l -> l.startsWith("ENTRYPOINT ")).reduce((a, b) -> b).orElseThrow();
        return strings(JSON.readTree(entry.substring("ENTRYPOINT ".length())));
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.values().forEach(v -> out.add(v.asString()));
        return out;
    }

    private static List<String> fieldNames(JsonNode object) {
        return new ArrayList<>(new TreeSet<>(object.propertyNames()));
    }
}
