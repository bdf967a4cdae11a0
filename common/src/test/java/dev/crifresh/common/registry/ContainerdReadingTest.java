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
 * config version the agent accepts, as each containerd generation reads them. Every column is checked against a real
 * binary ({@code containerd --config X config dump} prints the merged, migrated config it loaded): Debian's 1.6,
 * trixie's 1.7, sid's 2.1.9 and containerd's own 2.2.7 and 2.3.4 ({@code reality/bin/fetch-containerd}). The model
 * of a generation named exactly (2.1, 2.2, 2.3) must read what its binary holds, except where a case says it is in
 * doubt; the model of "some 2.x" (2.0 from source, 2.1, 2.2, 2.3 must agree) and Talos mode are columns of their own.
 */
@SuppressWarnings("checkstyle:filelength") // a table of cases
class ContainerdReadingTest {
    /** A file of a case: its {@code version} line (or none) and its body. */
    record File(Integer version, String body) {
    }

    /**
     * @param one    what the 1.x model reads and the real containerd 1.6 holds: host → password, or null when it
     *               refuses the files
     * @param two    what the model of "some 2.x" reads, or null when its reading is in doubt
     * @param auto   what the agent reads in Talos mode (generation unknown), or null for unknown
     * @param real21 what the real containerd 2.1.9 holds, or null when it refuses the files
     * @param real22 the same for 2.2.7
     * @param real23 the same for 2.3.4
     * @param doubt  the generations (of 2.1, 2.2, 2.3) whose exact model is in doubt on this case (unknown)
     */
    record Case(String name, List<File> files, Map<String, String> one, Map<String, String> two,
                Map<String, String> auto, Map<String, String> real21, Map<String, String> real22,
                Map<String, String> real23, java.util.Set<String> doubt) {
        /** 2.1, 2.2 and 2.3 hold the same. */
        static Case of(String name, List<File> files, Map<String, String> one, Map<String, String> two,
                       Map<String, String> auto, Map<String, String> real) {
            return new Case(name, files, one, two, auto, real, real, real, java.util.Set.of());
        }

        /** 2.1 and 2.2 hold the same; 2.3 may not. */
        static Case of(String name, List<File> files, Map<String, String> one, Map<String, String> two,
                       Map<String, String> auto, Map<String, String> real21and22, Map<String, String> real23) {
            return new Case(name, files, one, two, auto, real21and22, real21and22, real23, java.util.Set.of());
        }

        Case doubting(String... generations) {
            return new Case(name, files, one, two, auto, real21, real22, real23, java.util.Set.of(generations));
        }

        /** What the exact model of a 2.x generation must read: the real binary's holding, null where in doubt. */
        Map<String, String> model(Generation generation) {
            return doubt.contains(generation.label()) ? null : real(generation);
        }

        Map<String, String> real(Generation generation) {
            return switch (generation) {
                case V2_1 -> real21;
                case V2_2 -> real22;
                case V2_3 -> real23;
                default -> throw new IllegalArgumentException(generation.name());
            };
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

    /** {@code auth} alone: base64 of {@code u:<password>}. */
    private static String authField(String plugin, String password) {
        return "[plugins.\"" + plugin + "\".registry.configs.\"ghcr.io\".auth]\nauth = \""
                + java.util.Base64.getEncoder().encodeToString(("u:" + password).getBytes(StandardCharsets.UTF_8))
                + "\"\n";
    }

    private static final String GRPC = ContainerdConfigFile.CRI_V1_PLUGIN;
    private static final String IMAGES = ContainerdConfigFile.IMAGES_PLUGIN;
    private static final String RUNTIMES = "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
            + "runtime_type = \"io.containerd.runc.v2\"\n";
    /** A legacy CRI table with a registry holding no credential (a CRI customization in the old syntax). */
    private static final String LEGACY_CONFIG_PATH = "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
            + "enable_unprivileged_ports = true\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n"
            + "config_path = \"/etc/cri/conf.d/hosts\"\n";
    private static final Map<String, String> NONE = Map.of();

    private static Map<String, String> pw(String password) {
        return Map.of("ghcr.io", password);
    }

    private static File f(Integer version, String body) {
        return new File(version, body);
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one row per set of loaded files
    static Stream<Case> cases() {
        return Stream.of(
                Case.of("Talos >= 1.9: version 3 root, version 3 import, images plugin",
                        List.of(f(3, ""), f(3, auth(IMAGES, "p1"))), NONE, pw("p1"), pw("p1"), pw("p1")),
                Case.of("Talos <= 1.8: version 2 root, version 2 import, 1.x CRI plugin (no runtimes)",
                        List.of(f(2, ""), f(2, auth(GRPC, "p1"))), pw("p1"), null, pw("p1"), pw("p1")),
                Case.of("version 2 root, version-less import with the full CRI plugin name",
                        List.of(f(2, ""), f(null, auth(GRPC, "pA"))), pw("pA"), null, pw("pA"), pw("pA")),
                Case.of("version 2 root, version-less import with the short name cri: 1.x refuses it",
                        List.of(f(2, ""), f(null, auth("cri", "pB"))), null, null, null, pw("pB")),
                Case.of("version-less root and import, short name cri: 2.1 reads neither name under a version-less root",
                        List.of(f(null, ""), f(null, auth("cri", "pC"))), pw("pC"), null, pw("pC"), NONE, pw("pC")),
                Case.of("version-less root and import, full name",
                        List.of(f(null, ""), f(null, auth(GRPC, "pC2"))), NONE, null, NONE, NONE, pw("pC2")),
                Case.of("version 2 root, version 1 import: the merged version is the import's",
                        List.of(f(2, ""), f(1, auth("cri", "pD"))), pw("pD"), null, pw("pD"), pw("pD")),
                // issue 42, kind 3: 2.1 and 2.2 re-stamp a version 0 or 1 file to the version merged before it
                Case.of("version 3 root, version 1 drop-in with the short name cri (Talos' root, an old drop-in):"
                                + " 2.1 and 2.2 drop it, 2.3 migrates it",
                        List.of(f(3, ""), f(1, auth("cri", "pV1"))), pw("pV1"), null, null, NONE, pw("pV1")),
                Case.of("version 3 root, version 1 drop-in with the full CRI name: 2.1 and 2.2 drop it",
                        List.of(f(3, ""), f(1, auth(GRPC, "pV1g"))), NONE, null, null, NONE, pw("pV1g")),
                Case.of("version 2 root, version 1 drop-in, version 3 import: merged 3, nothing is migrated",
                        List.of(f(2, ""), f(1, auth("cri", "pV13")), f(3, "")), null, null, null, NONE, null),
                Case.of("version 3 root, version 4 import, version 3 import: 2.1 and 2.2 check only the merged version",
                        List.of(f(3, ""), f(4, auth(IMAGES, "p434")), f(3, "")), NONE, null, null, pw("p434"), null),
                Case.of("version 1 root, version 2 import: 2.1 reads an import above its root, 2.3.4 refuses it",
                        List.of(f(1, ""), f(2, auth(GRPC, "pG"))), pw("pG"), null, pw("pG"), pw("pG"), null),
                Case.of("a later version 2 file with the CRI table but no registry replaces it in 1.x",
                        List.of(f(2, auth(GRPC, "pI")), f(2, "[plugins.\"" + GRPC + "\"]\nsandbox_image = \"x\"\n")),
                        NONE, null, NONE, pw("pI")),
                Case.of("a later file without a CRI table keeps it",
                        List.of(f(2, auth(GRPC, "pH")), f(null, "[debug]\nlevel = \"info\"\n")), pw("pH"), null,
                        pw("pH"), pw("pH")),
                Case.of("version 2 with runtimes: 2.x migrates the registry to the images plugin",
                        List.of(f(2, RUNTIMES + auth(GRPC, "p2"))), pw("p2"), pw("p2"), pw("p2"), pw("p2")),
                Case.of("version 3 with both sections and runtimes: 2.3 migrates the 1.x registry over the images one",
                        List.of(f(3, RUNTIMES + auth(GRPC, "old") + auth(IMAGES, "new"))), pw("old"), null, null,
                        pw("new"), pw("old")),
                Case.of("one version 3 file, images and 1.x registries, no runtimes: 2.3 reads the 1.x one",
                        List.of(f(3, auth(IMAGES, "p3") + auth(GRPC, "decoy"))), pw("decoy"), null, null, pw("p3"),
                        pw("decoy")),
                Case.of("Talos 1.15: version 4 root, version 4 import (2.1 and 2.2 refuse version 4)",
                        List.of(f(4, ""), f(4, auth(IMAGES, "p4"))), NONE, pw("p4"), pw("p4"), null, pw("p4")),
                Case.of("version 4 root, version 3 import: 2.1 takes the last version, 3, and reads it",
                        List.of(f(4, ""), f(3, auth(IMAGES, "p43"))), NONE, pw("p43"), pw("p43"), pw("p43")),
                Case.of("version 3 root, version 4 import: 2.1 and 2.2 refuse version 4, 2.3.4 an import above its root",
                        List.of(f(3, ""), f(4, auth(IMAGES, "p34"))), NONE, null, null, null, null),
                Case.of("2.x overrides every auth field of an earlier import",
                        List.of(f(3, auth(IMAGES, "first")), f(3, auth(IMAGES, "second"))), NONE, pw("second"),
                        pw("second"), pw("second")),
                Case.of("2.x merges auth fields of two imports: the username and password pair wins over a later auth",
                        List.of(f(3, ""), f(3, auth(IMAGES, "first")), f(3, authField(IMAGES, "second"))),
                        NONE, pw("first"), pw("first"), pw("first")),
                Case.of("2.x merges auth fields of two imports: a later pair wins over an earlier auth",
                        List.of(f(3, ""), f(3, authField(IMAGES, "first")), f(3, auth(IMAGES, "second"))),
                        NONE, pw("second"), pw("second"), pw("second")),
                Case.of("version 3 root, version 2 import without runtimes (an old drop-in under Talos >= 1.9's root)",
                        List.of(f(3, ""), f(2, auth(GRPC, "p32"))), pw("p32"), null, null, pw("p32")),
                Case.of("version 3 root, version 2 import with runtimes",
                        List.of(f(3, ""), f(2, RUNTIMES + auth(GRPC, "p32r"))), pw("p32r"), pw("p32r"), pw("p32r"),
                        pw("p32r")),
                Case.of("version 2 root, version 3 import with the images plugin: 1.x reads none, 2.1 reads it",
                        List.of(f(2, ""), f(3, auth(IMAGES, "p23"))), NONE, null, NONE, pw("p23"), null),
                Case.of("a version 3 import after a version 2 file with the registry: 2.1 migrates nothing, it is lost",
                        List.of(f(2, auth(GRPC, "lost")), f(3, "[plugins.\"" + IMAGES + "\"]\nsnapshotter = \"native\"\n")),
                        pw("lost"), null, pw("lost"), NONE, null),
                Case.of("one version 2 file with both sections, no runtimes: 2.x moves the 1.x registry over the other",
                        List.of(f(2, auth(GRPC, "legacy") + auth(IMAGES, "new"))), pw("legacy"), null, pw("legacy"),
                        pw("legacy")),
                // issue 36's shapes: a legacy CRI table in a version 3 file, which 2.3 migrates and 2.1/2.2 do not
                Case.of("L1: Talos' layout, cri.toml version 3 with the images credential and a legacy one",
                        List.of(f(3, ""), f(3, auth(IMAGES, "new") + auth(GRPC, "old"))), pw("old"), null, null,
                        pw("new"), pw("old")),
                Case.of("L2: the legacy table holds only registry.config_path: 2.3 holds no credential",
                        List.of(f(3, ""), f(3, auth(IMAGES, "new") + LEGACY_CONFIG_PATH)), NONE, null, null,
                        pw("new"), NONE),
                Case.of("A1: the images pair beside a legacy auth field: 2.3 keeps only the auth field",
                        List.of(f(3, ""), f(3, auth(IMAGES, "new") + authField(GRPC, "old"))), pw("old"), null, null,
                        pw("new"), pw("old")),
                Case.of("L4: L1's cri.toml under a version 4 root",
                        List.of(f(4, ""), f(3, auth(IMAGES, "new") + auth(GRPC, "old"))), pw("old"), null, null,
                        pw("new"), pw("old")),
                Case.of("L6: the legacy table in a separate import after the images one",
                        List.of(f(3, ""), f(3, auth(IMAGES, "new")), f(3, auth(GRPC, "old"))), pw("old"), null, null,
                        pw("new"), pw("old")),
                Case.of("L6, the legacy import first: the later images credential overrides in every 2.x",
                        List.of(f(3, ""), f(3, auth(GRPC, "old")), f(3, auth(IMAGES, "new"))), pw("old"), pw("new"),
                        pw("new"), pw("new")),
                Case.of("L2 in a separate import: the credential stays, but 2.3 also takes the legacy config_path",
                        List.of(f(3, ""), f(3, auth(IMAGES, "new")), f(3, LEGACY_CONFIG_PATH)), NONE, null,
                        null, pw("new")),
                Case.of("Talos 1.15: a version 4 file's legacy table is not migrated by 2.3",
                        List.of(f(4, ""), f(4, auth(IMAGES, "new") + auth(GRPC, "old"))), pw("old"), pw("new"),
                        pw("new"), null, pw("new")));
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

    /** What a reading holds; null when it is in doubt, or when no pull sends anything (containerd refuses). */
    private static Map<String, String> passwords(ContainerdReading.Result r) {
        if (r instanceof ContainerdReading.Failed || r instanceof ContainerdReading.Read read && !read.criFails().isEmpty()) {
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
        for (Generation exact : List.of(Generation.V2_1, Generation.V2_2, Generation.V2_3)) {
            assertEquals(c.model(exact), passwords(ContainerdReading.read(docs, exact)), "containerd " + exact.label());
        }
        assertEquals(c.two(), passwords(ContainerdReading.read(docs, Generation.TWO)), "some containerd 2.x");
        assertEquals(c.auto(), passwords(ContainerdReading.read(docs, true)), "Talos mode");
        // "Some 2.x" may be in doubt, never wrong: where it reads, every 2.x that loads the files holds that.
        if (c.two() != null) {
            for (Generation exact : List.of(Generation.V2_1, Generation.V2_2, Generation.V2_3)) {
                if (c.real(exact) != null) {
                    assertEquals(c.real(exact), c.two(), "some 2.x against the real containerd " + exact.label());
                }
            }
        }
        // Generic mode: the reading only when both generations agree.
        Map<String, String> generic = passwords(ContainerdReading.read(docs, false));
        assertEquals(c.one() != null && c.one().equals(c.two()) ? c.one() : null, generic, "generic mode");
    }

    /** What reasons say when 2.x releases disagree: the file and the shape, never a value. */
    @Test
    void aDisagreementNamesTheShape() {
        Case l1 = cases().filter(c -> c.name().startsWith("L1:")).findFirst().orElseThrow();
        ContainerdReading.Failed failed = assertInstanceOf(ContainerdReading.Failed.class,
                ContainerdReading.read(documents(l1), Generation.TWO));
        assertTrue(failed.message().startsWith("f1.toml: a version 3 file with a registry in the CRI plugin's table"
                + " (io.containerd.grpc.v1.cri)"), failed.message());
        assertTrue(failed.message().contains("2.1: ghcr.io, 2.2: ghcr.io, 2.3: ghcr.io"), failed.message());
        assertTrue(failed.message().endsWith("--containerd-generation names it"), failed.message());
    }

    @Test
    void generationsOfTheVersionsContainerdReports() {
        assertEquals(java.util.Optional.of(Generation.V2_3), Generation.ofVersion("v2.3.4"));
        assertEquals(java.util.Optional.of(Generation.V2_2), Generation.ofVersion("v2.2.7"));
        assertEquals(java.util.Optional.of(Generation.V2_1), Generation.ofVersion("2.1.9+unknown"));
        assertEquals(java.util.Optional.of(Generation.ONE), Generation.ofVersion("1.7.24~ds1"));
        assertEquals(java.util.Optional.of(Generation.ONE), Generation.ofVersion("1.6.20"));
        assertEquals(java.util.Optional.of(Generation.TWO), Generation.ofVersion("v2.0.5"));
        for (String other : List.of("v2.4.0", "v3.0.0", "v1.5.9", "", "2", "dev")) {
            assertEquals(java.util.Optional.empty(), Generation.ofVersion(other), other);
        }
    }

    @Test
    void failuresNeverQuoteACredential() {
        cases().forEach(c -> {
            List<ContainerdReading.Result> results = new ArrayList<>(List.of(ContainerdReading.read(documents(c), false),
                    ContainerdReading.read(documents(c), true)));
            for (Generation g : Generation.values()) {
                results.add(ContainerdReading.read(documents(c), g));
            }
            for (ContainerdReading.Result r : results) {
                if (r instanceof ContainerdReading.Failed failed) {
                    for (String secret : List.of("pB", "old", "new", "first", "second", "p34", "pG")) {
                        assertTrue(!failed.message().contains("\"" + secret + "\""), failed.message());
                    }
                }
            }
        });
    }

    /** A real containerd binary and the column of the cases it must hold. */
    /** @param exact the model's exact generation for this binary, or null (1.x: the column is the model's) */
    record Binary(String generation, Path path, java.util.function.Function<Case, Map<String, String>> column,
                  String plugin, Generation exact) {
        @Override
        public String toString() {
            return "containerd " + generation;
        }
    }

    /**
     * Debian's own 1.6, and 1.7, 2.1, 2.2 and 2.3 from {@code reality/bin/fetch-containerd}'s cache
     * ({@code $CRIFRESH_CONTAINERD_CACHE} or {@code ~/.cache/crifresh/containerd}, {@code <version>/usr/bin/containerd}).
     */
    static Stream<Binary> binaries() {
        String env = System.getenv("CRIFRESH_CONTAINERD_CACHE");
        Path cache = env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "crifresh", "containerd");
        return Stream.of(
                new Binary("1.6", Path.of("/usr/bin/containerd"), Case::one, GRPC, null),
                new Binary("1.7", cached(cache, "1.7"), Case::real17, GRPC, null),
                new Binary("2.1", cached(cache, "2.1"), Case::real21, IMAGES, Generation.V2_1),
                new Binary("2.2", cached(cache, "2.2"), Case::real22, IMAGES, Generation.V2_2),
                new Binary("2.3", cached(cache, "2.3"), Case::real23, IMAGES, Generation.V2_3));
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
                    + " reality/bin/fetch-containerd for 1.7, 2.1, 2.2 and 2.3)";
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
            ContainerdConfigFile.Parsed dumped = dump(binary.path(), caseDir.resolve("f0.toml"));
            Map<String, String> held = dumped == null ? null : passwords(dumped.section(binary.plugin()));
            if (!java.util.Objects.equals(binary.column().apply(c), held)) {
                mismatches.add(c.name() + ": expected " + binary.column().apply(c) + ", " + binary + " holds " + held);
            }
            // The exact 2.x readings carry the whole registry table: its config_path too (where hosts.toml is read).
            if (dumped != null && binary.exact() != null
                    && ContainerdReading.read(documents(c), binary.exact()) instanceof ContainerdReading.Read read) {
                String expected = read.registry().configPath() == null ? "" : read.registry().configPath();
                String actual = dumped.section(binary.plugin()).configPath();
                if (!expected.equals(actual == null ? "" : actual)) {
                    mismatches.add(c.name() + ": config_path: expected '" + expected + "', " + binary + " holds '"
                            + actual + "'");
                }
            }
        }
        assertEquals(List.of(), mismatches);
    }

    /** The config containerd dumps (merged and migrated); null when it refuses the files. */
    private static ContainerdConfigFile.Parsed dump(Path binary, Path config) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--config", config.toString(), "config", "dump")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "containerd config dump did not finish");
        if (p.exitValue() != 0) {
            return null;
        }
        return assertInstanceOf(ContainerdConfigFile.Parsed.class, ContainerdConfigFile.parse(out));
    }

    /** host → password of one plugin table. */
    private static Map<String, String> passwords(ContainerdConfigFile.PluginSection section) {
        Map<String, String> passwords = new TreeMap<>();
        section.auths().forEach((h, a) -> passwords.put(h, a.auth().password()));
        return passwords;
    }
}
