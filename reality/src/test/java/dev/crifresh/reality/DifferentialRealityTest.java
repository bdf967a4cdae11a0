package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential test (issue 42, docs/reality.md "The differential test"): seeded config shapes
 * ({@link ShapeGenerator}), each read by the agent ({@link AgentReading}) and by the real containerd of every
 * generation here, whose pulls a {@link RecordingRegistry} records. The invariant: the agent says unknown or stale,
 * or the credential it says a pull sends is exactly the one containerd sent (none = none). Per generation it prints
 * {@code differential containerd <version>: <n> shapes, <a> read alike, <u> doubted, <d> read differently} and
 * asserts {@code d = 0} (and {@code n ≥ 200} for the CI size); every disagreement is printed with its seed and
 * files (credentials masked) and written to {@code target/differential-disagreements.txt}.
 *
 * <p>Properties: {@code crifresh.differential.shapes} (per generation, default 204: 34 nodes of 6 hosts),
 * {@code crifresh.differential.seed} (the base seed; default: the time, printed), {@code
 * crifresh.differential.replay} (one node's seed: only that node), {@code crifresh.differential.generations}
 * ({@code 1.6,2.2}: only those), {@code crifresh.differential.parallel} (generations run at once, default 2).
 *
 * <p>Its containerds run under a command line no agent takes for the CRI containerd
 * ({@link DifferentialContainerd}), so this suite takes no {@link MachineLock} and runs beside the others.
 */
class DifferentialRealityTest {
    static final int HOSTS_PER_NODE = 6;
    static final int CI_SHAPES = 204;
    private static final byte[] KEY = "differential-fingerprint-key-32-bytes!!".getBytes(StandardCharsets.UTF_8);
    private static final Path DISAGREEMENTS = Path.of("target", "differential-disagreements.txt");
    private static final List<String> GENERATIONS = List.of("1.6", "1.7", "2.1", "2.2", "2.3");

    @TempDir
    static Path work;
    private static final Map<String, Future<Differential.Tally>> RUNS = new ConcurrentHashMap<>();
    private static ExecutorService executor;
    private static final List<RecordingRegistry> REGISTRIES = new ArrayList<>();

    @AfterAll
    static void stop() {
        if (executor != null) {
            executor.shutdownNow();
        }
        REGISTRIES.forEach(RecordingRegistry::close);
    }

    @TestFactory
    Stream<DynamicTest> eachGeneration() {
        RealityGate.require();
        int shapes = Integer.getInteger("crifresh.differential.shapes", CI_SHAPES);
        String replay = System.getProperty("crifresh.differential.replay", "");
        long base = Long.getLong("crifresh.differential.seed", System.currentTimeMillis());
        String only = System.getProperty("crifresh.differential.generations", "");
        int nodes = replay.isBlank() ? (shapes + HOSTS_PER_NODE - 1) / HOSTS_PER_NODE : 1;
        System.out.println("differential: base seed " + base + " (-Dcrifresh.differential.seed=" + base + "), " + nodes
                + " node configs of " + HOSTS_PER_NODE + " hosts per generation");
        try {
            Files.deleteIfExists(DISAGREEMENTS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        executor = Executors.newFixedThreadPool(Integer.getInteger("crifresh.differential.parallel", 2));
        List<DynamicTest> tests = new ArrayList<>();
        for (String name : GENERATIONS) {
            if (!only.isBlank() && !List.of(only.split(",")).contains(name)) {
                continue;
            }
            ContainerdGeneration generation = ContainerdGeneration.named(name);
            if (generation.missing().isEmpty()) {
                RecordingRegistry registry = RecordingRegistry.start(work.resolve("registry-" + name),
                        HOSTS_PER_NODE + 1);
                REGISTRIES.add(registry);
                RUNS.put(name, executor.submit(() -> run(generation, registry, base, replay, nodes)));
            }
            tests.add(DynamicTest.dynamicTest(generation.toString(), () -> {
                RealityGate.require(generation);
                Differential.Tally tally = RUNS.get(name).get();
                System.out.println(tally.line(name));
                System.out.println(tally.detail(name, tally.wallNanos));
                tally.doubtReasons.forEach((k, v) -> System.out.println("  doubted " + v + "x: " + k));
                if (replay.isBlank() && shapes >= CI_SHAPES) {
                    assertTrue(tally.shapes >= 200, tally.line(name));
                }
                assertEquals(0, tally.different, tally.line(name) + "; the disagreements:\n"
                        + String.join("\n", tally.disagreements));
            }));
        }
        return tests.stream();
    }

    private static Differential.Tally run(ContainerdGeneration generation, RecordingRegistry registry, long base,
                                          String replay, int nodes) {
        Differential differential = new Differential(generation, registry, KEY, work.resolve("nodes"));
        Differential.Tally tally = new Differential.Tally();
        long started = System.nanoTime();
        for (int i = 0; i < nodes; i++) {
            long seed = replay.isBlank() ? mix(base, generation.name(), i) : Long.parseUnsignedLong(replay);
            int before = tally.disagreements.size();
            differential.judge(seed, tally);
            for (String d : tally.disagreements.subList(before, tally.disagreements.size())) {
                System.out.println("differential disagreement: " + d);
                record(d);
            }
            if ((i + 1) % 50 == 0 && i + 1 < nodes) {
                // a long run's figures so far, so a run cut short still says what it tried
                System.out.println(tally.line(generation.name()) + " (so far, " + (i + 1) + " of " + nodes
                        + " node configs, " + (System.nanoTime() - started) / 1_000_000_000 + " s)");
            }
        }
        tally.wallNanos = System.nanoTime() - started;
        return tally;
    }

    /**
     * Node {@code i}'s seed for one generation, from the printed base seed: distinct per generation and node (a
     * generation's nodes sit a million indices apart from another's, then MurmurHash3's 64-bit finaliser mixes).
     */
    static long mix(long base, String generation, int i) {
        long h = base + 0x9E3779B97F4A7C15L * (generation.hashCode() * 1_000_003L + i + 1);
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h & Long.MAX_VALUE;
    }

    private static synchronized void record(String disagreement) {
        try {
            Files.createDirectories(DISAGREEMENTS.getParent());
            Files.writeString(DISAGREEMENTS, disagreement + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
