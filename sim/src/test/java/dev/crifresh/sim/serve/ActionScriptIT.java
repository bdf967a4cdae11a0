package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.TrustBundle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The GitHub Action's script (action/run.sh: everything of action.yml except GitHub itself) against
 * {@code crifresh-sim serve}, with the real coordinator jar, {@code GITHUB_OUTPUT} and {@code GITHUB_STEP_SUMMARY}
 * pointing at temporary files as on a runner. In order, on one served cluster: a plan whose pod blocker holds
 * nodes back (warnings), a rollout whose blockers do not clear (warnings, the run's error, exit 3), a rollout whose reboot driver fails (errors, exit 1, the step fails), the rerun that
 * succeeds (exit 0) after the failed node was rebooted by hand as its error says, and a usage error (exit 2, no report).
 * Then the Action's default path, without the input {@code jar}: the release's assets as {@code .ci/release-assets}
 * assembles them, served by a real HTTP server on loopback as {@code <server>/<repo>/releases/download/v<version>/…}
 * ({@code GITHUB_SERVER_URL} pointing at it, as on GitHub Enterprise Server): the jar is downloaded, verified and
 * run; a release whose jar was tampered with is refused before anything runs, with a message naming the checksum.
 *
 * <p>Threat model: the tampered release stands on the defended side (a modified jar on the download path is not
 * run); the rest is operator UX.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ActionScriptIT {
    private static final Path SCRIPT = ServeProcess.REPO.resolve("action/run.sh");

    @TempDir
    static Path work;
    static ServeProcess serve;

    @BeforeAll
    static void startServe() throws Exception {
        ServeProcess.requirePackagedJars();
        serve = ServeProcess.start(work);
    }

    @AfterAll
    static void stopServe() throws Exception {
        if (serve != null) {
            serve.close();
        }
    }

    record Step(int exit, String log, Map<String, String> outputs, String summary, List<String> annotations, JsonNode report) {
    }

    /** Runs the script like the composite step does: inputs as INPUT_* variables, the runner's files. */
    private static Step run(String name, Map<String, String> inputs) throws Exception {
        Path dir = Files.createDirectories(work.resolve(name));
        Path output = dir.resolve("github_output");
        Path summary = dir.resolve("step_summary");
        Path log = dir.resolve("log.txt");
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("INPUT_") || k.startsWith("GITHUB_") || k.startsWith("JAVA_HOME"));
        Path javaBin = Path.of(ServeProcess.java()).getParent();
        env.put("PATH", javaBin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", dir.toString());
        env.put("RUNNER_TEMP", Files.createDirectories(dir.resolve("runner-temp")).toString());
        env.put("GITHUB_OUTPUT", Files.createFile(output).toString());
        env.put("GITHUB_STEP_SUMMARY", Files.createFile(summary).toString());
        env.put("KUBECONFIG", serve.kubeconfig().toString());  // the caller's kubeconfig
        env.put("INPUT_JAR", ServeProcess.COORDINATOR_JAR.toString());
        env.putAll(inputs);
        Process p = pb.start();
        if (!p.waitFor(8, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(name + ": the script did not finish within 8 minutes:\n" + Files.readString(log));
        }
        String text = Files.readString(log);
        Map<String, String> outputs = new LinkedHashMap<>();
        for (String line : Files.readAllLines(output)) {
            int eq = line.indexOf('=');
            outputs.put(line.substring(0, eq), line.substring(eq + 1));
        }
        List<String> annotations = text.lines().filter(l -> l.startsWith("::error") || l.startsWith("::warning")).toList();
        String reportPath = outputs.getOrDefault("report", "");
        JsonNode report = reportPath.isEmpty() ? null : JsonMapper.builder().build().readTree(Files.readString(Path.of(reportPath)));
        return new Step(p.exitValue(), text, outputs, Files.readString(summary), annotations, report);
    }

    private static Map<String, String> common(String command) {
        Map<String, String> in = new LinkedHashMap<>();
        in.put("INPUT_COMMAND", command);
        in.put("INPUT_TRUST_BUNDLE", serve.trust().toString());
        in.put("INPUT_TRUST_SECRET", "crifresh/crifresh-trust-bundle");  // action.yml's default; the bundle wins
        in.put("INPUT_CREDENTIAL_FILE", serve.credential().toString());
        return in;
    }

    /** An installation mistake (the coordinator's trust bundle matches no agent): exit 6 and its own annotation. */
    @Test
    @Order(0)
    void aTrustBundleThatMatchesNoAgentFailsThePlanWithItsOwnAnnotation() throws Exception {
        Path bundle = Files.createDirectories(work.resolve("other-trust-bundle"));
        Path fingerprintKey = serve.trust().resolve(TrustBundle.FINGERPRINT_KEY_FILE);
        Files.writeString(bundle.resolve(TrustBundle.JWKS_FILE),
                TrustBundle.of(List.of(Ed25519Keys.generate().getPublic()), Files.readAllBytes(fingerprintKey)).jwksJson());
        Files.copy(fingerprintKey, bundle.resolve(TrustBundle.FINGERPRINT_KEY_FILE));
        Map<String, String> in = common("plan");
        in.put("INPUT_TRUST_BUNDLE", bundle.toString());
        in.put("INPUT_ARGS", "--etcd-check=none");
        Step s = run("untrusted", in);
        assertEquals(6, s.exit(), s.log());
        assertEquals("6", s.outputs().get("exit-code"));
        List<String> errors = s.annotations().stream().filter(a -> a.startsWith("::error")).toList();
        assertEquals(1, errors.size(), s.annotations().toString());
        String error = errors.get(0);
        assertTrue(error.startsWith("::error title=crifresh%3A no node attests its boot (installation?)::a rollout would stop"
                + " before the first cordon: no selected node carries a verifiable attestation of its current boot"), error);
        assertTrue(error.contains("with signed by a key not in the trust bundle"), error);
        assertTrue(error.contains("--allow-no-attestations"), error);
    }

    @Test
    @Order(1)
    void aPlanWhoseBlockerHoldsNodesBackWarnsPerBlockedNode() throws Exception {
        Map<String, String> in = common("plan");
        in.put("INPUT_MAX_UNAVAILABLE", "2");  // rollout only: the plan says it ignores it
        in.put("INPUT_ARGS", "--etcd-check=none\n  --block-on-pod-selector=app=web  \n\n");
        Step s = run("plan", in);
        assertEquals(0, s.exit(), s.log());
        assertEquals("planned", s.outputs().get("result"), s.log());
        assertEquals("0", s.outputs().get("failed"));
        assertEquals("0", s.outputs().get("exit-code"));
        assertTrue(s.log().contains("input max-unavailable applies to rollout only"), s.log());
        assertTrue(s.summary().startsWith("### crifresh plan: planned"), s.summary());
        assertTrue(s.summary().contains("| worker-a | worker | stale | ConfigChangedAfterContainerdStart | reboot |"), s.summary());

        List<String> blockedNodes = blockedNodes(s.report());
        assertFalse(blockedNodes.isEmpty(), "the web pods block the plan's workers: " + s.report());
        assertEquals(blockedNodes.size(), s.annotations().size(), s.annotations().toString());
        for (String node : blockedNodes) {
            assertTrue(s.annotations().stream().anyMatch(a -> a.startsWith("::warning title=crifresh%3A " + node + " blocked::"
                    + node + ": pod gate blocked: ")), node + " " + s.annotations());
        }
        assertFalse(blockedNodes.contains("worker-d"), "a fresh node is not checked: " + blockedNodes);
    }

    @Test
    @Order(2)
    void aRolloutHeldBackByBlockersWarnsPerNodeAndFailsTheStepWithTheRunsError() throws Exception {
        Map<String, String> in = common("rollout");
        in.put("INPUT_REBOOT_DRIVER", "command");
        in.put("INPUT_ARGS", "--etcd-check=none\n--api-outage-budget=2m\n--reboot-command=false {node}\n--block-on-pod-selector=app=web\n--block-timeout=1s");
        Step s = run("blocked", in);
        assertEquals(3, s.exit(), s.log());
        assertEquals("3", s.outputs().get("exit-code"));
        assertEquals("0", s.outputs().get("rebooted"));
        assertEquals("0", s.outputs().get("failed"));
        List<String> timedOut = s.report().path("gates").valueStream()
                .filter(g -> "timed-out".equals(g.path("result").asString()) && g.has("node"))
                .map(g -> g.path("node").asString()).distinct().toList();
        assertFalse(timedOut.isEmpty(), s.report().toString());
        for (String node : timedOut) {
            assertTrue(s.annotations().stream().anyMatch(a -> a.startsWith("::warning title=crifresh%3A " + node + " blocked::"
                    + node + ": pod gate timed-out: ")), node + " " + s.annotations());
        }
        List<String> errors = s.annotations().stream().filter(a -> a.startsWith("::error")).toList();
        assertEquals(1, errors.size(), s.annotations().toString());
        assertTrue(errors.get(0).startsWith("::error title=crifresh " + s.outputs().get("result") + "::"), errors.toString());
        assertEquals(timedOut.size() + 1, s.annotations().size(), s.annotations().toString());
    }

    @Test
    @Order(3)
    void aRolloutWhoseRebootsFailAnnotatesEachFailedNodeAndFailsTheStep() throws Exception {
        Map<String, String> in = common("rollout");
        in.put("INPUT_MAX_UNAVAILABLE", "2");
        in.put("INPUT_REBOOT_DRIVER", "command");
        in.put("INPUT_ARGS", "--etcd-check=none\n--api-outage-budget=2m\n--reboot-command=false {node}\n--run-id=run-failing");
        Step s = run("failing", in);
        assertEquals(1, s.exit(), s.log());
        assertEquals("failed", s.outputs().get("result"), s.log());
        assertEquals("1", s.outputs().get("exit-code"));
        List<String> failed = nodesWith(s.report(), "failed");
        assertFalse(failed.isEmpty(), s.report().toString());
        assertEquals(Integer.toString(failed.size()), s.outputs().get("failed"));
        assertEquals("0", s.outputs().get("rebooted"));
        assertEquals(failed.size(), s.annotations().size(), s.annotations().toString());
        for (String node : failed) {
            assertTrue(s.annotations().stream().anyMatch(a -> a.startsWith("::error title=crifresh%3A " + node + " failed::" + node
                    + " (")), node + " " + s.annotations());
        }
        assertTrue(s.summary().startsWith("### crifresh rollout: failed"), s.summary());
        assertTrue(Files.isRegularFile(Path.of(s.outputs().get("report"))));
        assertTrue(s.outputs().get("report").startsWith(work.resolve("failing/runner-temp").toString()), s.outputs().toString());
        failedNodes = failed;
    }

    static List<String> failedNodes = List.of();

    @Test
    @Order(4)
    void theRerunSucceedsWithCountsAndNoAnnotations() throws Exception {
        // what the failed node's error says: the request failed, so reboot it by hand before the rerun
        for (String node : failedNodes) {
            Process p = new ProcessBuilder(ServeProcess.java(), "-jar", ServeProcess.SIM_JAR.toString(), "reboot", node,
                    "--kubeconfig", serve.kubeconfig().toString()).redirectErrorStream(true)
                    .redirectOutput(work.resolve("reboot-" + node + ".out").toFile()).start();
            assertTrue(p.waitFor(2, TimeUnit.MINUTES) && p.exitValue() == 0, Files.readString(work.resolve("reboot-" + node + ".out")));
        }
        Map<String, String> in = common("rollout");
        in.put("INPUT_MAX_UNAVAILABLE", "2");
        in.put("INPUT_REBOOT_DRIVER", "command");
        in.put("INPUT_KUBECONFIG", serve.kubeconfig().toString());
        in.put("INPUT_REPORT", work.resolve("succeeded-report.json").toString());
        in.put("INPUT_ARGS", "--etcd-check=none\n--api-outage-budget=2m\n--reboot-command=" + ServeProcess.java() + " -jar " + ServeProcess.SIM_JAR
                + " reboot {node}");
        Step s = run("succeeding", in);
        assertEquals(0, s.exit(), s.log());
        assertEquals(Map.of("result", "succeeded", "rebooted", "4", "skipped", "3", "failed", "0",
                "report", work.resolve("succeeded-report.json").toString(), "exit-code", "0"), s.outputs(), s.log());
        assertEquals(List.of(), s.annotations());
        assertTrue(s.summary().startsWith("### crifresh rollout: succeeded"), s.summary());
        assertTrue(s.summary().contains("7 nodes:") && s.summary().contains("4 rebooted, 3 skipped, 0 failed"), s.summary());
        assertEquals("succeeded", s.report().path("result").asString());
    }

    @Test
    @Order(5)
    void aUsageErrorFailsTheStepWithTheCoordinatorsMessage() throws Exception {
        Map<String, String> in = common("rollout");
        in.remove("INPUT_CREDENTIAL_FILE");
        in.put("INPUT_ARGS", "--max-unavailable=-3");
        Step s = run("usage", in);
        assertEquals(2, s.exit(), s.log());
        assertEquals("error", s.outputs().get("result"));
        assertEquals("", s.outputs().get("report"));
        assertEquals(1, s.annotations().size(), s.annotations().toString());
        assertTrue(s.annotations().get(0).startsWith("::error title=crifresh rollout::crifresh-coordinator exited 2 without a report:"
                + " crifresh-coordinator: "), s.annotations().toString());
        assertTrue(s.summary().startsWith("### crifresh rollout: error (exit 2)"), s.summary());
    }

    /** The chart's version, which .ci/release-assets requires the release to have. */
    private static String chartVersion() throws Exception {
        return Files.readAllLines(ServeProcess.REPO.resolve("charts/crifresh/Chart.yaml")).stream()
                .filter(l -> l.startsWith("version:")).map(l -> l.substring("version:".length()).trim()).findFirst().orElseThrow();
    }

    private static Path releaseAssets(String version) throws Exception {
        Path out = work.resolve("release-assets");
        Process p = new ProcessBuilder("bash", ServeProcess.REPO.resolve(".ci/release-assets").toString(), version, out.toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("release-assets.log").toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "release-assets did not finish");
        assertEquals(0, p.exitValue(), Files.readString(work.resolve("release-assets.log")));
        return out;
    }

    @Test
    @Order(6)
    void theDefaultPathDownloadsTheReleasedJarFromTheRunnersServerVerifiesAndRunsIt() throws Exception {
        String version = chartVersion();
        Path assets = releaseAssets(version);
        assertEquals(List.of("SHA256SUMS", "crifresh-" + version + ".tgz", "crifresh-" + version + ".tgz.sha256",
                "crifresh-agent.jar", "crifresh-agent.jar.sha256", "crifresh-coordinator.jar", "crifresh-coordinator.jar.sha256",
                "crifresh-sim.jar", "crifresh-sim.jar.sha256"), list(assets));
        try (ReleaseServer server = new ReleaseServer()) {
            server.publish("crifresh/crifresh", version, assets);
            Map<String, String> in = common("plan");
            in.put("INPUT_JAR", "");
            in.put("INPUT_VERSION", "v" + version);
            in.put("INPUT_ARGS", "--etcd-check=none");
            in.put("GITHUB_SERVER_URL", server.url());
            // a composite action's GITHUB_ACTION_REPOSITORY is empty (actions/runner#2525): the checkout path tells
            in.put("GITHUB_ACTION_PATH", work.resolve("runner/_actions/crifresh/crifresh/v" + version).toString());
            in.put("RUNNER_TOOL_CACHE", work.resolve("toolcache").toString());
            Step s = run("download", in);
            assertEquals(0, s.exit(), s.log());
            assertEquals("planned", s.outputs().get("result"), s.log());
            String base = "GET /crifresh/crifresh/releases/download/v" + version + "/crifresh-coordinator.jar";
            assertEquals(List.of(base, base + ".sha256"), server.requests());
            assertTrue(s.log().contains("Downloading " + server.url() + base.substring(4)), s.log());
            Path cached = work.resolve("toolcache/crifresh/" + version + "/crifresh-coordinator.jar");
            assertEquals(-1, Files.mismatch(ServeProcess.COORDINATOR_JAR, cached), "the released jar is what ran");
            assertTrue(s.log().contains("-jar " + cached + " plan"), s.log());
        }
    }

    @Test
    @Order(7)
    void aTamperedReleaseJarIsRefusedWithAMessageNamingTheChecksum() throws Exception {
        String version = chartVersion();
        Path assets = work.resolve("release-assets");
        Path tampered = Files.createDirectories(work.resolve("release-tampered"));
        for (String name : list(assets)) {
            Files.copy(assets.resolve(name), tampered.resolve(name));
        }
        byte[] jar = Files.readAllBytes(tampered.resolve("crifresh-coordinator.jar"));
        jar[jar.length / 2] ^= 0x01;  // one bit, inside the archive's data
        Files.write(tampered.resolve("crifresh-coordinator.jar"), jar);
        try (ReleaseServer server = new ReleaseServer()) {
            server.publish("crifresh/crifresh", version, tampered);
            Map<String, String> in = common("plan");
            in.put("INPUT_JAR", "");
            in.put("INPUT_VERSION", version);
            in.put("GITHUB_SERVER_URL", server.url() + "/");
            in.put("GITHUB_ACTION_REPOSITORY", "crifresh/crifresh");
            in.put("RUNNER_TOOL_CACHE", work.resolve("toolcache-tampered").toString());
            Step s = run("tampered", in);
            assertEquals(2, s.exit(), s.log());
            assertEquals("error", s.outputs().get("result"));
            assertEquals(1, s.annotations().size(), s.annotations().toString());
            String url = server.url() + "/crifresh/crifresh/releases/download/v" + version + "/crifresh-coordinator.jar";
            String expected = Files.readString(tampered.resolve("crifresh-coordinator.jar.sha256")).substring(0, 64);
            assertTrue(s.annotations().get(0).startsWith("::error title=crifresh::checksum mismatch, not running it: the SHA-256 of "
                    + url + " is "), s.annotations().toString());
            assertTrue(s.annotations().get(0).endsWith("but " + url + ".sha256 says " + expected), s.annotations().toString());
            assertFalse(s.log().contains(" -jar "), "nothing ran: " + s.log());
            try (java.util.stream.Stream<Path> left = Files.list(work.resolve("toolcache-tampered/crifresh/" + version))) {
                assertEquals(List.of(), left.toList(), "nothing is kept for the next run to find");
            }
        }
    }

    private static List<String> list(Path dir) throws Exception {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static List<String> nodesWith(JsonNode report, String outcome) {
        return report.path("nodes").valueStream().filter(n -> outcome.equals(n.path("outcome").asString()))
                .map(n -> n.path("name").asString()).toList();
    }

    private static List<String> blockedNodes(JsonNode report) {
        return report.path("gates").valueStream().filter(g -> "blocked".equals(g.path("result").asString()) && g.has("node"))
                .map(g -> g.path("node").asString()).distinct().toList();
    }
}
