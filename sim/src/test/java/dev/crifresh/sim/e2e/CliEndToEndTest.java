package dev.crifresh.sim.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.cli.SimMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code crifresh-sim} as a user runs it. */
class CliEndToEndTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = SimMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void theDemoTellsItsStoryAndExitsZero() {
        Instant start = Instant.now();
        int code = run("demo");
        Duration took = Duration.between(start, Instant.now());
        System.out.println("demo took " + took.toMillis() + " ms");
        assertEquals(0, code, out + "\n" + err);
        String story = out.toString();
        assertTrue(story.contains("== 1. Plan"), story);
        assertTrue(story.contains("== 2. Rollout"), story);
        assertTrue(story.contains("Reboots avoided: 3 of 7"), story);
        assertTrue(story.contains("Result: succeeded"), story);
        assertTrue(story.contains("Pull proof: 4 of 4 rebooted nodes pulled the private image"), story);
        assertTrue(story.contains("pull proof passed: the node pulled ghcr.io/example/pull-probe:1"), story);
        assertTrue(story.contains("etcd healthy before its reboot"), story);
        assertFalse(story.contains("token-v") || err.toString().contains("token-v"), "a password was printed");
        assertFalse((story + err).contains("SIMULATION ERROR"), "a clean run reported a simulation error:\n" + story + err);
    }

    @Test
    void scenarioPrintsTheJsonReportOnStdoutAndProgressOnStderr(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, Runs.example("fresh-autoscaled-node.yaml")
                + "simulation: {rebootMillis: 100}\n");
        int code = run("scenario", file.toString(), "-o", "json");
        assertEquals(0, code, err.toString());
        JsonNode report = JsonMapper.shared().readTree(out.toString());
        assertEquals("succeeded", report.get("result").stringValue());
        assertEquals("worker-old", report.get("rebootOrder").get(0).stringValue());
        assertEquals(1, report.get("summary").get("skipped").intValue());
        assertTrue(err.toString().contains("worker-old"), err.toString());
        assertFalse(out.toString().contains("token-v2") || err.toString().contains("token-v2"), "a password was printed");
        assertFalse(err.toString().contains("SIMULATION ERROR"), "a clean run reported a simulation error:\n" + err);
    }

    @Test
    void planChangesNothingAndPrintsTheTable(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, Runs.example("marker-stamped-stale.yaml"));
        int code = run("scenario", file.toString(), "--plan");
        assertEquals(0, code, err.toString());
        assertTrue(out.toString().contains("result: planned"), out.toString());
        assertTrue(!err.toString().contains("reboot requested"), err.toString());
    }

    @Test
    void aBadScenarioIsOneLineAndExitTwo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "nodes:\n  - name: a\n  - name: b\n  - {name: worker-b, reboot: sometimes}\n");
        assertEquals(2, run("scenario", file.toString()));
        assertEquals("crifresh-sim: " + file + ": nodes[2] (worker-b).reboot: unknown value 'sometimes', expected"
                + " ok | never-returns" + System.lineSeparator(), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void badFlagsAreOneLineAndExitTwo() {
        assertEquals(2, run("scenario", "x.yaml", "-o", "yaml"));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("crifresh-sim: "), err.toString());
        StringWriter fresh = new StringWriter();
        CommandLine cl = SimMain.commandLine();
        cl.setErr(new PrintWriter(fresh, true));
        assertEquals(2, cl.execute("scenario", "/no/such/file.yaml"));
        assertEquals("crifresh-sim: /no/such/file.yaml: no such file" + System.lineSeparator(), fresh.toString());
    }
}
