package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .ci/release-assets}, the script release.yml runs to fill the GitHub release, in a copy of the repository
 * with stand-in jars (the real ones are the sim module's ActionScriptIT's): the folder holds the three jars, the
 * packaged chart and a {@code .sha256} per file in sha256sum's format (what action/run.sh verifies), the chart
 * archive is what Helm's loader reads and renders exactly as the chart directory does, its bytes do not depend on
 * when it is built, and wrong input is refused with a message naming it.
 */
class ReleaseAssetsTest {

    private static final Path SCRIPT = Docs.ROOT.resolve(".ci/release-assets");
    private static final List<String> JARS = List.of("agent/target/crifresh-agent.jar", "coordinator/target/crifresh-coordinator.jar",
            "sim/target/crifresh-sim.jar");

    @TempDir
    Path work;

    record Run(int exit, String output) {
    }

    /** A repository copy: the script, the chart, stand-in jars. */
    private Path repository() throws IOException {
        Path repo = work.resolve("repo");
        Files.createDirectories(repo.resolve(".ci"));
        Files.copy(SCRIPT, repo.resolve(".ci/release-assets"));
        repo.resolve(".ci/release-assets").toFile().setExecutable(true);
        try (Stream<Path> files = Files.walk(Chart.SOURCE)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = repo.resolve("charts/crifresh").resolve(Chart.SOURCE.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        for (String jar : JARS) {
            Files.createDirectories(repo.resolve(jar).getParent());
            Files.writeString(repo.resolve(jar), "stand-in for " + jar);
        }
        // an editor's backup next to the templates: .helmignore keeps it out of the package
        Files.writeString(repo.resolve("charts/crifresh/templates/agent-daemonset.yaml.orig"), "{{ fail \"ignored\" }}");
        return repo;
    }

    private static Run run(Path repo, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve(".ci/release-assets").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(repo.toFile());
        pb.environment().put("SOURCE_DATE_EPOCH", "1767225600");
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static String version() throws Exception {
        return tools.jackson.dataformat.yaml.YAMLMapper.builder().build()
                .readTree(Files.readString(Chart.SOURCE.resolve("Chart.yaml"))).path("version").asString();
    }

    @Test
    void assemblesTheJarsTheChartAndTheirSha256Sums() throws Exception {
        Path repo = repository();
        Path out = work.resolve("dist");
        Run r = run(repo, "v" + version(), out.toString());
        assertEquals(0, r.exit(), r.output());
        String chart = "crifresh-" + version() + ".tgz";
        TreeSet<String> expected = new TreeSet<>(List.of("SHA256SUMS", chart, chart + ".sha256"));
        for (String jar : JARS) {
            String name = jar.substring(jar.lastIndexOf('/') + 1);
            expected.add(name);
            expected.add(name + ".sha256");
            assertEquals(-1, Files.mismatch(repo.resolve(jar), out.resolve(name)));
        }
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(expected, new TreeSet<>(files.map(f -> f.getFileName().toString()).toList()));
        }
        // sha256sum's own check, per file and for SHA256SUMS; and the first field is what action/run.sh compares
        for (String sums : expected.stream().filter(n -> n.endsWith(".sha256") || n.equals("SHA256SUMS")).toList()) {
            Process check = new ProcessBuilder("sha256sum", "--check", "--strict", sums).directory(out.toFile()).redirectErrorStream(true).start();
            assertTrue(check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0, sums + ": " + new String(check.getInputStream().readAllBytes()));
        }
        String line = Files.readString(out.resolve("crifresh-coordinator.jar.sha256")).strip();
        assertTrue(line.matches("[0-9a-f]{64}  crifresh-coordinator\\.jar"), line);
        assertEquals(4, Files.readAllLines(out.resolve("SHA256SUMS")).size());
    }

    /** Helm's loader reads the archive (helm-java), and it renders byte for byte as the chart directory does. */
    @Test
    void theChartArchiveRendersAsTheChartDirectoryAndIsReproducible() throws Exception {
        Path repo = repository();
        Path out = work.resolve("dist");
        assertEquals(0, run(repo, version(), out.toString()).exit());
        Path archive = out.resolve("crifresh-" + version() + ".tgz");
        String fromArchive = new Helm(archive).template().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE).call();
        String fromDirectory = Chart.template(Chart.SOURCE, java.util.Map.of());
        assertEquals(fromDirectory, fromArchive);
        assertTrue(fromArchive.contains("kind: DaemonSet"));

        Process list = new ProcessBuilder("tar", "-tzf", archive.toString()).redirectErrorStream(true).start();
        List<String> entries = new String(list.getInputStream().readAllBytes()).lines().toList();
        assertTrue(list.waitFor(30, TimeUnit.SECONDS));
        assertTrue(entries.contains("crifresh/Chart.yaml") && entries.contains("crifresh/values.schema.json"), entries.toString());
        assertTrue(entries.stream().allMatch(e -> e.startsWith("crifresh/")), entries.toString());
        assertTrue(entries.stream().noneMatch(e -> e.endsWith(".orig")), ".helmignore is honoured: " + entries);

        Files.setLastModifiedTime(repo.resolve("charts/crifresh/values.yaml"), java.nio.file.attribute.FileTime.fromMillis(0));
        Path again = work.resolve("again");
        assertEquals(0, run(repo, version(), again.toString()).exit());
        assertEquals(-1, Files.mismatch(archive, again.resolve(archive.getFileName())), "same sources, same bytes");
    }

    @Test
    void refusesAVersionThatIsNotTheChartsAMissingJarAndAFullFolder() throws Exception {
        Path repo = repository();
        Run other = run(repo, "9.9.9", work.resolve("a").toString());
        assertEquals(2, other.exit());
        assertTrue(other.output().contains("release 9.9.9, but charts/crifresh/Chart.yaml has version " + version()), other.output());

        Run usage = run(repo, "latest", work.resolve("b").toString());
        assertEquals(2, usage.exit());
        assertTrue(usage.output().contains("VERSION must be X.Y.Z"), usage.output());

        Files.delete(repo.resolve("sim/target/crifresh-sim.jar"));
        Run missing = run(repo, version(), work.resolve("c").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.output().contains("sim/target/crifresh-sim.jar is missing"), missing.output());
        Files.writeString(repo.resolve("sim/target/crifresh-sim.jar"), "again");

        Path full = Files.createDirectories(work.resolve("full"));
        Files.writeString(full.resolve("old.jar"), "old");
        Run notEmpty = run(repo, version(), full.toString());
        assertEquals(2, notEmpty.exit());
        assertTrue(notEmpty.output().contains("is not empty"), notEmpty.output());
    }
}
