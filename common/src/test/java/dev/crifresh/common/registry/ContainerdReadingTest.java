package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crifresh.common.registry.ContainerdReading.Generation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which registry credential containerd holds after reading a root config and its imports, for every
 * config version the agent accepts, as containerd 1.x and 2.x read them. Every column is checked against a real
 * binary ({@code containerd --config X config dump} prints the merged, migrated config it loaded): Debian's 1.6,
 * trixie's 1.7 and sid's 2.1.9 ({@code reality/bin/fetch-containerd}). Where containerd 2.x releases differ (the
 * source of 2.0 against the binary of 2.1), the 2.x model is in doubt: unknown.
 */
class ContainerdReadingTest {
    /** A file of a case: its {@code version} line (or none) and its body. */
    record File(Integer version, String body) {
    }

    /**
     * @param one    what the 1.x model reads and the real containerd 1.6 holds: host → password, or null when it
     *               refuses the files
     * @param two    what the 2.x model reads, or null when its reading is in doubt
     * @param auto   what the agent reads in Talos mode (generation unknown), or null for unknown
     * @param real21 what the real containerd 2.1.9 holds, or null when it refuses the files
     */
    record Case(String name, List<File> files, Map<String, String> one, Map<String, String> two,
                Map<String, String> auto, Map<String, String> real21) {
        /** A case where the 2.x model reads what containerd 2.1.9 holds. */
        Case(String name, List<File> files, Map<String, String> one, Map<String, String> two, Map<String, String> auto) {
            this(name, files, one, two, auto, two);
        }

        /**
         * containerd 1.7 reads as 1.6 does, but refuses an import of a version above 2 when it loads it, and a
         * merged version above 2 (its {@code ValidateVersion}); 1.6 accepts both.
         */
        Map<String, String> real17() {
            int merged = 0;
            for (int i = 0; i < files.size(); i++) {
                Integer v = files.get(i).version();
                if (v != null && v > 2 && i > 0) {
                    return null;
                }
                if (v != null && v != 0) {
                    merged = v;
                }
            }
            return merged > 2 ? null : one;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static String auth(String plugin, String password) {
        return "[plugins.\"" + plugin + "\".registry.configs.\"ghcr.io\".auth]\nusername = \"u\"\npassword = \""
                + password + "\"\n";
    }

    private static final String GRPC = ContainerdConfigFile.CRI_V1_PLUGIN;
    private static final String IMAGES = ContainerdConfigFile.IMAGES_PLUGIN;
    private static final String RUNTIMES = "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
            + "runtime_type = \"io.containerd.runc.v2\"\n";
    private static final Map<String, String> NONE = Map.of();

    private static Map<String, String> pw(String password) {
        return Map.of("ghcr.io", password);
    }

    private static File f(Integer version, String body) {
        return new File(version, body);
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("Talos >= 1.9: version 3 root, version 3 import, images plugin",
                        List.of(f(3, ""), f(3, auth(IMAGES, "p1"))), NONE, pw("p1"), pw("p1")),
                new Case("Talos <= 1.8: version 2 root, version 2 import, 1.x CRI plugin (no runtimes)",
                        List.of(f(2, ""), f(2, auth(GRPC, "p1"))), pw("p1"), null, pw("p1"), pw("p1")),
                new Case("version 2 root, version-less import with the full CRI plugin name",
                        List.of(f(2, ""), f(null, auth(GRPC, "pA"))), pw("pA"), null, pw("pA"), pw("pA")),
                new Case("version 2 root, version-less import with the short name cri: 1.x refuses it",
                        List.of(f(2, ""), f(null, auth("cri", "pB"))), null, null, null, pw("pB")),
                new Case("version-less root and import, short name cri: 2.1 reads neither name under a version-less root",
                        List.of(f(null, ""), f(null, auth("cri", "pC"))), pw("pC"), null, pw("pC"), NONE),
                new Case("version-less root and import, full name: neither reads it",
                        List.of(f(null, ""), f(null, auth(GRPC, "pC2"))), NONE, null, NONE, NONE),
                new Case("version 2 root, version 1 import: the merged version is the import's",
                        List.of(f(2, ""), f(1, auth("cri", "pD"))), pw("pD"), null, pw("pD"), pw("pD")),
                new Case("version 1 root, version 2 import: 2.1 reads an import above its root",
                        List.of(f(1, ""), f(2, auth(GRPC, "pG"))), pw("pG"), pw("pG"), pw("pG")),
                new Case("a later version 2 file with the CRI table but no registry replaces it in 1.x",
                        List.of(f(2, auth(GRPC, "pI")), f(2, "[plugins.\"" + GRPC + "\"]\nsandbox_image = \"x\"\n")),
                        NONE, null, NONE, pw("pI")),
                new Case("a later file without a CRI table keeps it",
                        List.of(f(2, auth(GRPC, "pH")), f(null, "[debug]\nlevel = \"info\"\n")), pw("pH"), null,
                        pw("pH"), pw("pH")),
                new Case("version 2 with runtimes: 2.x migrates the registry to the images plugin",
                        List.of(f(2, RUNTIMES + auth(GRPC, "p2"))), pw("p2"), pw("p2"), pw("p2")),
                new Case("version 3 with both sections and runtimes: 2.2 may migrate, 2.0 does not",
                        List.of(f(3, RUNTIMES + auth(GRPC, "old") + auth(IMAGES, "new"))), pw("old"), null, null,
                        pw("new")),
                new Case("version 3 root: containerd 1.6 reads the 1.x section of a version 3 file",
                        List.of(f(3, auth(IMAGES, "p3") + auth(GRPC, "decoy"))), pw("decoy"), pw("p3"), pw("p3")),
                new Case("Talos 1.15: version 4 root, version 4 import (2.1 refuses version 4)",
                        List.of(f(4, ""), f(4, auth(IMAGES, "p4"))), NONE, pw("p4"), pw("p4"), null),
                new Case("version 4 root, version 3 import: 2.1 takes the last version, 3, and reads it",
                        List.of(f(4, ""), f(3, auth(IMAGES, "p43"))), NONE, pw("p43"), pw("p43")),
                new Case("version 3 root, version 4 import: 2.1 refuses version 4, 2.2 an import above its root",
                        List.of(f(3, ""), f(4, auth(IMAGES, "p34"))), NONE, pw("p34"), pw("p34"), null),
                new Case("2.x overrides every auth field of an earlier import",
                        List.of(f(3, auth(IMAGES, "first")), f(3, auth(IMAGES, "second"))), NONE, pw("second"),
                        pw("second")),
                new Case("2.x merges auth fields of two imports: in doubt (2.1 pulls with the username's pair)",
                        List.of(f(3, auth(IMAGES, "first")),
                                f(3, "[plugins.\"" + IMAGES + "\".registry.configs.\"ghcr.io\".auth]\n"
                                        + "auth = \"dTpzZWNvbmQ=\"\n")),
                        NONE, null, null, pw("first")),
                new Case("version 3 root, version 2 import without runtimes (an old drop-in under Talos >= 1.9's root)",
                        List.of(f(3, ""), f(2, auth(GRPC, "p32"))), pw("p32"), null, null, pw("p32")),
                new Case("version 3 root, version 2 import with runtimes",
                        List.of(f(3, ""), f(2, RUNTIMES + auth(GRPC, "p32r"))), pw("p32r"), pw("p32r"), pw("p32r")),
                new Case("version 2 root, version 3 import with the images plugin: 1.x reads none, 2.1 reads it",
                        List.of(f(2, ""), f(3, auth(IMAGES, "p23"))), NONE, pw("p23"), NONE),
                new Case("a version 3 import after a version 2 file with the registry: 2.1 migrates nothing, it is lost",
                        List.of(f(2, auth(GRPC, "lost")), f(3, "[plugins.\"" + IMAGES + "\"]\nsnapshotter = \"native\"\n")),
                        pw("lost"), NONE, pw("lost")),
                new Case("one version 2 file with both sections, no runtimes: 2.1 moves the 1.x registry over the other",
                        List.of(f(2, auth(GRPC, "legacy") + auth(IMAGES, "new"))), pw("legacy"), null, pw("legacy"),
                        pw("legacy")));
    }

    private static List<ContainerdReading.Document> documents(Case c) {
        List<ContainerdReading.Document> docs = new ArrayList<>();
        List<String> texts = texts(c);
        for (int i = 0; i < texts.size(); i++) {
            docs.add(new ContainerdReading.Document("f" + i + ".toml",
                    assertInstanceOf(ContainerdConfigFile.Parsed.class, ContainerdConfigFile.parse(texts.get(i)))));
        }
        return docs;
    }

    /** The files as written: the root (f0) imports the others by relative name, in order. */
    private static List<String> texts(Case c) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < c.files().size(); i++) {
            File file = c.files().get(i);
            StringBuilder s = new StringBuilder();
            if (file.version() != null) {
                s.append("version = ").append(file.version()).append('\n');
            }
            if (i == 0 && c.files().size() > 1) {
                List<String> names = new ArrayList<>();
                for (int j = 1; j < c.files().size(); j++) {
                    names.add("\"f" + j + ".toml\"");
                }
                s.append("imports = [").append(String.join(", ", names)).append("]\n");
            }
            out.add(s.append(file.body()).toString());
        }
        return out;
    }

    private static Map<String, String> passwords(ContainerdReading.Result r) {
        if (r instanceof ContainerdReading.Failed) {
            return null;
        }
        Map<String, String> out = new TreeMap<>();
        ((ContainerdReading.Read) r).byHost().forEach((h, a) -> out.put(h, a.password()));
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachGenerationReadsWhatItsSourcesSay(Case c) {
        List<ContainerdReading.Document> docs = documents(c);
        assertEquals(c.one(), passwords(ContainerdReading.read(docs, Generation.ONE)), "containerd 1.x");
        assertEquals(c.two(), passwords(ContainerdReading.read(docs, Generation.TWO)), "containerd 2.x");
        assertEquals(c.auto(), passwords(ContainerdReading.read(docs, true)), "Talos mode");
        // The 2.x model may be in doubt, never wrong: where it reads, it reads what the real 2.1.9 holds.
        if (c.two() != null && c.real21() != null) {
            assertEquals(c.real21(), c.two(), "the 2.x model against the real containerd 2.1.9");
        }
        // Generic mode: the reading only when both generations agree.
        Map<String, String> generic = passwords(ContainerdReading.read(docs, false));
        assertEquals(c.one() != null && c.one().equals(c.two()) ? c.one() : null, generic, "generic mode");
    }

    @Test
    void failuresNeverQuoteACredential() {
        cases().forEach(c -> {
            for (ContainerdReading.Result r : List.of(ContainerdReading.read(documents(c), false),
                    ContainerdReading.read(documents(c), Generation.TWO))) {
                if (r instanceof ContainerdReading.Failed failed) {
                    for (String secret : List.of("pB", "old", "new", "first", "second", "p34", "pG")) {
                        assertTrue(!failed.message().contains("\"" + secret + "\""), failed.message());
                    }
                }
            }
        });
    }

    /** A real containerd binary and the column of the cases it must hold. */
    record Binary(String generation, Path path, java.util.function.Function<Case, Map<String, String>> column,
                  String plugin) {
        @Override
        public String toString() {
            return "containerd " + generation;
        }
    }

    /**
     * Debian's own 1.6, and 1.7 and 2.1 from {@code reality/bin/fetch-containerd}'s cache
     * ({@code $CRIFRESH_CONTAINERD_CACHE} or {@code ~/.cache/crifresh/containerd}, {@code <version>/usr/bin/containerd}).
     */
    static Stream<Binary> binaries() {
        String env = System.getenv("CRIFRESH_CONTAINERD_CACHE");
        Path cache = env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "crifresh", "containerd");
        return Stream.of(
                new Binary("1.6", Path.of("/usr/bin/containerd"), Case::one, GRPC),
                new Binary("1.7", cached(cache, "1.7"), Case::real17, GRPC),
                new Binary("2.1", cached(cache, "2.1"), Case::real21, IMAGES));
    }

    private static Path cached(Path cache, String generation) {
        try (Stream<Path> versions = Files.isDirectory(cache) ? Files.list(cache) : Stream.empty()) {
            return versions.filter(v -> v.getFileName().toString().startsWith(generation + "."))
                    .map(v -> v.resolve("usr/bin/containerd")).filter(Files::isExecutable)
                    .max(java.util.Comparator.comparing(Path::toString))
                    .orElse(cache.resolve(generation + ".x/usr/bin/containerd"));
        } catch (IOException e) {
            return cache.resolve(generation + ".x/usr/bin/containerd");
        }
    }

    /**
     * Every case against each real containerd: what {@code containerd --config X config dump} shows it loaded
     * (the merged, migrated config) must be its column. Without the binary the test is skipped with one line
     * naming it; on CI ({@code CI=true}) that fails.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("binaries")
    void theRealContainerdsHoldTheirColumn(Binary binary, @TempDir Path dir) throws Exception {
        if (!Files.isExecutable(binary.path())) {
            String missing = binary + ": " + binary.path() + " is missing (Debian's containerd package for 1.6;"
                    + " reality/bin/fetch-containerd for 1.7 and 2.1)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                org.junit.jupiter.api.Assertions.fail(missing);
            }
            assumeTrue(false, missing);
        }
        List<String> mismatches = new ArrayList<>();
        int n = 0;
        for (Case c : cases().toList()) {
            Path caseDir = Files.createDirectories(dir.resolve("case" + n++));
            List<String> texts = texts(c);
            for (int i = 0; i < texts.size(); i++) {
                Files.writeString(caseDir.resolve("f" + i + ".toml"), texts.get(i));
            }
            Map<String, String> dumped = dump(binary.path(), caseDir.resolve("f0.toml"), binary.plugin());
            if (!java.util.Objects.equals(binary.column().apply(c), dumped)) {
                mismatches.add(c.name() + ": expected " + binary.column().apply(c) + ", " + binary + " holds " + dumped);
            }
        }
        assertEquals(List.of(), mismatches);
    }

    /** host → password of {@code plugin} in the dumped config; null when containerd refuses the files. */
    private static Map<String, String> dump(Path binary, Path config, String plugin)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--config", config.toString(), "config", "dump")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "containerd config dump did not finish");
        if (p.exitValue() != 0) {
            return null;
        }
        ContainerdConfigFile.Parsed parsed = assertInstanceOf(ContainerdConfigFile.Parsed.class,
                ContainerdConfigFile.parse(out));
        Map<String, String> passwords = new TreeMap<>();
        parsed.section(plugin).auths().forEach((h, a) -> passwords.put(h, a.auth().password()));
        return passwords;
    }
}
